"""The front door: every address the service offers, for the page at `/` and for the lines
`threadline serve` prints when it is ready (the README's quickstart).

One list, built here, so the page and the console name the same places: GraphiQL (unless
turned off), the lineage page, `/mcp`, Neo4j Browser where it really is, `/metrics` and the
docs. The managed Neo4j's Browser is on the HTTP port it listens on now (it moves off 7474
when that port is taken: `graph/runtime/local_neo4j.py`); a configured Neo4j's is
`THREADLINE_NEO4J_BROWSER_URL`, shown only when set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from api.settings import Settings

CHECKOUT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Place:
    name: str
    url: str
    what: str
    browsable: bool = True  # False: for clients, not a page (the front door shows how)


@dataclass(frozen=True)
class Neo4jInUse:
    """The Neo4j the service uses: where, whether Threadline manages it, its Browser."""

    uri: str
    managed: bool
    version: str | None  # known for the managed one
    browser: str | None
    data: Path | None  # the managed one's folder

    def line(self) -> str:
        if self.managed:
            return f"the managed Neo4j {self.version} at {self.uri} (data in {self.data})"
        return f"Neo4j at {self.uri} (configured: THREADLINE_NEO4J_URI)"


@cache
def version() -> str:
    return metadata.version("threadline")


def neo4j_in_use(settings: Settings) -> Neo4jInUse:
    if settings.neo4j_uri:
        return Neo4jInUse(settings.neo4j_uri, False, None, settings.neo4j_browser_url, None)
    local = settings.local_neo4j()
    browser = f"http://127.0.0.1:{local.ports().http}/browser/"
    return Neo4jInUse(local.uri, True, local.version, browser, local.home)


def docs() -> dict[str, Path]:
    """The docs a checkout holds, by the name `/docs/` serves them under (none when
    Threadline runs installed as a package, without its checkout)."""
    found = {"README.md": CHECKOUT / "README.md"} if (CHECKOUT / "README.md").is_file() else {}
    folder = CHECKOUT / "docs"
    if folder.is_dir():
        found.update({path.name: path for path in sorted(folder.glob("*.md"))})
    return found


def places(settings: Settings, base: str) -> list[Place]:
    """Every address, absolute, for a service reached at `base` (scheme://host:port)."""
    found = []
    if settings.graphiql and not settings.production:
        found.append(Place("GraphiQL", f"{base}/graphql", "run GraphQL in the browser"))
    found.append(Place("lineage page", f"{base}/lineage", "the newest threads and their family"))
    found.append(Place("MCP", f"{base}/mcp", "for agents (streamable HTTP)", browsable=False))
    browser = neo4j_in_use(settings).browser
    if browser:
        found.append(Place("Neo4j Browser", browser, "Cypher on the graph"))
    found.append(Place("metrics", f"{base}/metrics", "Prometheus"))
    if docs():
        found.append(Place("docs", f"{base}/docs/", "README and docs/"))
    return found


def mcp_config(settings: Settings, base: str) -> str:
    """A client's JSON configuration for `/mcp` (Claude Code's `.mcp.json`, ...)."""
    server: dict[str, object] = {"type": "http", "url": f"{base}/mcp"}
    if settings.tokens_file is not None:
        server["headers"] = {"Authorization": "Bearer <token>"}
    return json.dumps({"mcpServers": {"threadline": server}}, indent=2)


def ready_lines(settings: Settings, base: str) -> list[str]:
    """What `serve` prints once ready: the front door, then each address."""
    found = places(settings, base)
    width = max(len(place.name) for place in found)
    return [f"ready at {base}/"] + [f"  {place.name:<{width}}  {place.url}" for place in found]
