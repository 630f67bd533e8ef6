"""The DNS-rebinding guard's rule without a server: the names and origins the settings
allow, what the guard admits and refuses, and the MCP SDK's transport security, given the
same names, admitting all the guard admits."""

from __future__ import annotations

import pytest
from mcp.server.transport_security import TransportSecurityMiddleware
from pydantic import ValidationError
from starlette.requests import Request

from api.http.hosts import Trusted
from api.settings import Settings
from graph.errors import ErrorCode

PROXIED = Settings(
    allowed_hosts=["threadline.example.com", "10.0.0.7"],
    allowed_origins=["https://app.example.com"],
)


def test_the_environment_lists_names_and_origins_comma_separated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("THREADLINE_ALLOWED_HOSTS", " Threadline.Example.com, [::2],proxy ")
    monkeypatch.setenv("THREADLINE_ALLOWED_ORIGINS", "HTTPS://App.example.com:443/")
    settings = Settings()
    assert settings.allowed_hosts == ["threadline.example.com", "::2", "proxy"]
    assert settings.allowed_origins == ["https://app.example.com"]


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("allowed_hosts", "threadline.example.com:8443", "not a host name"),
        ("allowed_hosts", "https://threadline.example.com", "not a host name"),
        ("allowed_hosts", "-threadline", "not a host name"),
        ("allowed_origins", "threadline.example.com", "not an origin"),
        ("allowed_origins", "https://app.example.com/page", "not an origin"),
        ("allowed_origins", "null", "not an origin"),
        ("allowed_origins", "ftp://app.example.com", "not an origin"),
    ],
)
def test_an_entry_that_is_not_a_name_or_an_origin_is_refused(
    monkeypatch: pytest.MonkeyPatch, field: str, value: str, says: str
) -> None:
    monkeypatch.setenv(f"THREADLINE_{field.upper()}", value)
    with pytest.raises(ValidationError, match=says):
        Settings()


@pytest.mark.parametrize(
    "host",
    [
        "localhost:8000",
        "localhost",
        "127.0.0.1:1",
        "[::1]:65535",
        "[::1]",
        "threadline.example.com",
        "threadline.example.com:443",
        "10.0.0.7:8000",
    ],
)
def test_loopback_the_configured_host_and_the_allowed_names_pass_at_any_port(host: str) -> None:
    assert Trusted.from_settings(PROXIED).refusal(host, None) is None


def test_the_configured_host_is_a_name_of_the_service() -> None:
    assert Trusted.from_settings(Settings(host="::1")).refusal("[::1]:8000", None) is None
    named = Trusted.from_settings(Settings(host="devbox.lan"))
    assert named.refusal("devbox.lan:8000", None) is None
    assert Trusted.from_settings(Settings()).refusal("devbox.lan:8000", None) is not None


@pytest.mark.parametrize(
    "host",
    [
        "attacker.example:8000",
        "attacker.example",
        "localhost.attacker.example:8000",
        "127.0.0.1.nip.io:8000",
        "evil@localhost:8000",
        "localhost:8000/x",
        "localhost:port",
        "",
        None,
    ],
)
def test_any_other_host_is_misdirected(host: str | None) -> None:
    refused = Trusted.from_settings(PROXIED).refusal(host, None)
    assert refused is not None
    assert (refused.code, refused.event) == (ErrorCode.MISDIRECTED, "host_refused")


def test_the_host_is_checked_before_the_origin() -> None:
    """A rebinding page's Origin matches its Host: the Host refuses it."""
    origin = "http://attacker.example:8000"
    refused = Trusted.from_settings(Settings()).refusal("attacker.example:8000", origin)
    assert refused is not None and refused.code is ErrorCode.MISDIRECTED


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("localhost:8000", "http://localhost:8000"),
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("[::1]:8000", "http://[::1]:8000"),
        ("localhost", "http://localhost"),
        ("threadline.example.com:443", "https://threadline.example.com"),
        ("127.0.0.1:8000", "https://app.example.com"),  # listed
    ],
)
def test_the_services_own_pages_and_the_allowed_origins_pass(host: str, origin: str) -> None:
    assert Trusted.from_settings(PROXIED).refusal(host, origin) is None


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("localhost:8000", "http://attacker.example:8000"),
        ("localhost:8000", "http://localhost:3000"),  # another program's page
        ("localhost:8000", "http://127.0.0.1:8000"),  # another origin, though the same socket
        ("localhost:8000", "null"),  # a sandboxed frame, a file
        ("127.0.0.1:8000", "https://app.example.com:8443"),
    ],
)
def test_a_page_on_any_other_origin_is_forbidden(host: str, origin: str) -> None:
    refused = Trusted.from_settings(PROXIED).refusal(host, origin)
    assert refused is not None
    assert (refused.code, refused.event) == (ErrorCode.FORBIDDEN, "origin_refused")
    assert origin in refused.message


def request(host: str, origin: str | None) -> Request:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return Request({"type": "http", "method": "POST", "path": "/mcp", "headers": headers})


ADMITTED = [
    ("localhost:8000", None),
    ("localhost:8000", "http://localhost:8000"),
    ("localhost", "http://localhost"),
    ("127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("[::1]:8000", "http://[::1]:8000"),
    ("threadline.example.com", "https://threadline.example.com"),
    ("threadline.example.com:8443", "https://threadline.example.com:8443"),
    ("10.0.0.7:8000", "https://app.example.com"),
]


@pytest.mark.parametrize(("host", "origin"), ADMITTED)
async def test_the_mcp_sdks_own_check_admits_what_the_guard_admits(
    host: str, origin: str | None
) -> None:
    """/mcp is checked twice, the SDK's check after the guard's: what the guard lets
    through must not meet an uncoded refusal there."""
    trusted = Trusted.from_settings(PROXIED)
    assert trusted.refusal(host, origin) is None
    sdk = TransportSecurityMiddleware(trusted.transport_security())
    assert await sdk.validate_request(request(host, origin)) is None


async def test_the_mcp_sdk_refuses_a_rebinding_host_by_itself() -> None:
    sdk = TransportSecurityMiddleware(Trusted.from_settings(Settings()).transport_security())
    host = "attacker.example:8000"
    refused = await sdk.validate_request(request(host, f"http://{host}"))
    assert refused is not None and refused.status_code == 421
