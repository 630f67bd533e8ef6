"""The browser pages: GraphiQL (GET /graphql), the lineage page (/lineage) and /static.

Everything they load is in `api/http/static/`, shipped inside the package: the pages' own
scripts and the web assets vendored from the npm registry (`static/vendor/manifest.json`).
Their Content-Security-Policy allows this origin only, so a page cannot reach another host
even if a vendored file tried to.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.staticfiles import StaticFiles

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


def static_files() -> StaticFiles:
    return StaticFiles(directory=STATIC)
