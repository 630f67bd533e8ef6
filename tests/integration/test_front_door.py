"""The front door at `/`: every address, the version, the Neo4j in use, an MCP config;
the docs it links; and the same addresses in `serve`'s ready lines (api/front.py)."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

from api import front
from api.settings import Settings
from graph.store import Store
from tests.support.graphql import make_app_client
from tests.support.steps import tokens_file


async def test_the_front_door_links_every_address_and_says_what_it_runs_on(
    clean_store: Store, tmp_path: Path
) -> None:
    settings = Settings(neo4j_uri="bolt://db.example:7687", neo4j_browser_url="http://db:7474/")
    async with make_app_client(clean_store, settings) as http:
        page = await http.get("/")
        assert page.status_code == 200
        text = unescape(page.text)
        links = re.findall(r'<a href="([^"]+)">([^<]+)</a>', page.text)
        assert [name for _, name in links] == [
            "GraphiQL",
            "lineage page",
            "MCP",
            "Neo4j Browser",
            "metrics",
            "docs",
        ]
        hrefs = {name: url for url, name in links}
        assert hrefs["Neo4j Browser"] == "http://db:7474/"
        assert hrefs["MCP"] == "#mcp"  # the config to copy, on the page itself
        assert front.version() in text
        assert "bolt://db.example:7687" in text
        config = re.search(r'<pre id="mcp-config">(.*?)</pre>', page.text, re.S)
        assert config is not None
        server = json.loads(unescape(config[1]))["mcpServers"]["threadline"]
        assert server == {"type": "http", "url": "http://localhost/mcp"}  # open: no header
        for url, _ in links:
            if url.startswith("http://localhost/") and not url.endswith("/mcp"):
                assert (await http.get(url)).status_code == 200, url
        readme = await http.get("/docs/README.md")
        assert readme.headers["content-type"].startswith("text/plain")
        assert readme.text.startswith("# Threadline")
        assert (await http.get("/docs/nope.md")).status_code == 404
        assert (await http.get("/docs/..%2Fpyproject.toml")).status_code == 404


async def test_with_tokens_the_mcp_config_carries_a_token_header(
    clean_store: Store, tmp_path: Path
) -> None:
    settings = Settings(tokens_file=tokens_file(tmp_path, {"t": ("w", "read")}))
    async with make_app_client(clean_store, settings) as http:
        page = unescape((await http.get("/")).text)
    assert '"Authorization": "Bearer <token>"' in page


def test_the_ready_lines_list_the_front_doors_addresses(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, neo4j_uri=None, production=True)
    lines = front.ready_lines(settings, "http://127.0.0.1:8123")
    assert lines[0] == "ready at http://127.0.0.1:8123/"
    named = [line.split()[0] for line in lines[1:]]
    assert "GraphiQL" not in named  # production serves none
    browser = next(line for line in lines if line.strip().startswith("Neo4j Browser"))
    # The managed Neo4j's next start tries 7474 first while nothing is remembered.
    assert browser.endswith("http://127.0.0.1:7474/browser/")
    (tmp_path / "neo4j" / "default").mkdir(parents=True)
    (tmp_path / "neo4j" / "default" / "ports.json").write_text('{"bolt": 7700, "http": 7701}')
    moved = front.ready_lines(settings, "http://127.0.0.1:8123")
    assert any(line.endswith("http://127.0.0.1:7701/browser/") for line in moved)
