"""`python -m api.cli`: the `threadline` console."""

from api.cli.main import app

app()
