"""The `threadline` console: serve, neo4j, migrate, cypher, export, demo, tokens."""

from api.cli.main import app

__all__ = ["app"]
