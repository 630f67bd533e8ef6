"""`python -m bench`: see bench/cli.py and bench/README.md."""

from bench.cli import main

main()
