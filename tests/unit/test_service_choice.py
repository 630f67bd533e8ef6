"""Which service `threadline demo` and `threadline import` send to: the URL a user pastes,
the running one, or none (in-process); a workspace is never named and then ignored."""

from __future__ import annotations

import pytest
import typer
from threadline_client.connect import service_base

from api.cli.target import service_to_use
from api.settings import Settings
from graph.runtime.ports import free_ports


def test_a_pasted_address_is_the_services_base() -> None:
    base = "http://127.0.0.1:8941"
    for pasted in (base, f"{base}/", f"{base}/graphql", " 127.0.0.1:8941 ", "127.0.0.1:8941/"):
        assert service_base(pasted) == base, pasted


def test_a_workspace_named_over_a_url_is_refused_not_ignored() -> None:
    settings = Settings(port=free_ports(1)[0])
    with pytest.raises(typer.BadParameter, match="the token decides the workspace"):
        service_to_use(settings, "http://127.0.0.1:8941", "team-b", "importing into")
    assert service_to_use(settings, "http://127.0.0.1:8941", "default", "x") == (
        "http://127.0.0.1:8941"
    )


def test_with_no_service_running_the_app_runs_in_process() -> None:
    settings = Settings(port=free_ports(1)[0])
    assert service_to_use(settings, None, "default", "importing into") is None
    assert service_to_use(settings, None, "team-b", "importing into") is None
