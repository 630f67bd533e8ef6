"""The browser pages over HTTP: served from the package, same-origin only, token-free."""

from __future__ import annotations

import hashlib
from pathlib import Path

import httpx

from api.settings import Settings
from graph.store import Store
from tests.support.graphql import make_app_client

HTML = {"Accept": "text/html"}


def assert_same_origin_page(response: httpx.Response) -> None:
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy
    assert "connect-src 'self'" in policy


async def test_graphiql_and_the_lineage_page_come_from_the_package(http: httpx.AsyncClient) -> None:
    graphiql = await http.get("/graphql", headers=HTML)
    assert_same_origin_page(graphiql)
    assert "static/vendor/graphiql/graphiql.min.js" in graphiql.text
    lineage = await http.get("/lineage?thread=thr_x", headers=HTML)
    assert_same_origin_page(lineage)
    assert "static/vendor/cytoscape/cytoscape.min.js" in lineage.text
    for asset in ("vendor/cytoscape-dagre/cytoscape-dagre.min.js", "lineage/family.graphql"):
        assert (await http.get(f"/static/{asset}")).status_code == 200


async def test_static_files_stay_inside_the_static_folder(http: httpx.AsyncClient) -> None:
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/nothing.js"):
        assert (await http.get(path)).status_code == 404, path


async def test_pages_need_no_token_but_their_data_does(clean_store: Store, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    digest = hashlib.sha256(b"secret-token").hexdigest()
    tokens.write_text(
        f'[[tokens]]\nname = "t"\nsha256 = "{digest}"\nscopes = ["read"]\nworkspace = "w"\n'
    )
    async with make_app_client(clean_store, Settings(tokens_file=tokens)) as http:
        assert_same_origin_page(await http.get("/lineage", headers=HTML))
        assert (await http.get("/static/lineage/lineage.js")).status_code == 200
        query = {"query": "{ threads { edges { node { id } } } }"}
        answer = (await http.post("/graphql", json=query)).json()
        assert answer["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


async def test_production_serves_no_graphiql_but_the_lineage_page(clean_store: Store) -> None:
    async with make_app_client(clean_store, Settings(production=True)) as http:
        assert "graphiql" not in (await http.get("/graphql", headers=HTML)).text.lower()
        assert_same_origin_page(await http.get("/lineage", headers=HTML))
