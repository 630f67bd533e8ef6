"""Threadline's benchmark harness: `python -m bench`.

It measures the service from outside: GraphQL over real HTTP against a `threadline
serve` process, beside raw-driver baselines on the same Neo4j, over data that a bulk
generator writes straight into Neo4j. See bench/README.md.
"""
