"""The browser pages: the front door (/), GraphiQL (GET /graphql), the lineage page
(/lineage), the docs (/docs/) and /static.

Everything they load is in `api/http/static/`, shipped inside the package: the pages' own
scripts and the web assets vendored from the npm registry (`static/vendor/manifest.json`).
Their Content-Security-Policy allows this origin only, so a page cannot reach another host
even if a vendored file tried to.
"""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path
from string import Template

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.staticfiles import StaticFiles

from api import front
from api.settings import Settings

STATIC = Path(__file__).with_name("static")

# 'unsafe-inline' styles: Cytoscape and React set element styles; scripts stay 'self' only.
POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'none'",
    )
)


@cache
def _html(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def page(name: str) -> Response:
    """An HTML page of `static/`, under the same-origin policy."""
    return HTMLResponse(_html(name), headers={"Content-Security-Policy": POLICY})


def graphiql() -> Response:
    return page("graphiql/index.html")


async def lineage(_: Request) -> Response:
    """The lineage page; it reads `?thread=` itself and asks POST /graphql for the rest."""
    return page("lineage/index.html")


def front_door(request: Request, settings: Settings) -> Response:
    """`/`: every address (api/front.py), the version, the Neo4j in use, an MCP config."""
    base = str(request.base_url).rstrip("/")
    items = "\n".join(
        f'<li><a href="{html.escape(place.url if place.browsable else "#mcp")}">'
        f"{html.escape(place.name)}</a>"
        f"<span>{html.escape(place.what)}</span>"
        f'<span class="url">{html.escape(place.url)}</span></li>'
        for place in front.places(settings, base)
    )
    filled = Template(_html("front/index.html")).substitute(
        version=html.escape(front.version()),
        neo4j=html.escape(front.neo4j_in_use(settings).line()),
        places=items,
        mcp_config=html.escape(front.mcp_config(settings, base)),
        mcp_url=html.escape(f"{base}/mcp"),
        token_hint=" (with a token of yours in place of &lt;token&gt;)"
        if settings.tokens_file
        else "",
    )
    return HTMLResponse(filled, headers={"Content-Security-Policy": POLICY})


async def docs(request: Request) -> Response:
    """`/docs/`: the checkout's README and docs/, as text; `/docs/NAME` one of them."""
    found = front.docs()
    name = request.path_params.get("name")
    if name is None:
        items = "\n".join(
            f'<li><a href="/docs/{html.escape(n)}">{html.escape(n)}</a></li>' for n in found
        )
        body = f"<!doctype html><title>Threadline docs</title><ul>{items}</ul>"
        return HTMLResponse(body, headers={"Content-Security-Policy": POLICY})
    path = found.get(name)
    if path is None:
        return PlainTextResponse(f"No doc named {name!r}.", status_code=404)
    return PlainTextResponse(path.read_text(encoding="utf-8"))


def static_files() -> StaticFiles:
    return StaticFiles(directory=STATIC)
