"""Host names and web origins as the service's allow-lists hold them (docs/SECURITY.md):
parsed from a setting or a request header and normalised, so that two spellings of one
name compare equal. Standard library only: the settings read them at every command's
start, long before any web module loads.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

# A DNS name: dot-separated labels of letters, digits, '-' and '_' (which some internal
# names use), no label starting or ending with '-'.
LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
DNS_NAME = re.compile(rf"{LABEL}(?:\.{LABEL})*")
DEFAULT_PORTS = {"http": 80, "https": 443}


def host_name(text: str) -> str:
    """`text` as a host name: an IP address in its canonical form (IPv6 without brackets),
    else a DNS name in lower case. ValueError when it is neither (a port, a scheme)."""
    name = text.strip().lower()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        pass
    if bare != name or len(name) > 253 or DNS_NAME.fullmatch(name) is None:
        raise ValueError(
            f"{text!r} is not a host name: give a name such as threadline.example.com or "
            "an IP address, without a scheme or a port (every port is allowed)"
        )
    return name


def shown(name: str) -> str:
    """A host name as a URL or a Host header writes it: an IPv6 address in brackets."""
    return f"[{name}]" if ":" in name else name


def requested_name(header: str | None) -> str | None:
    """The host name a `Host` header names, or None when it names none: missing, or
    carrying anything beside a name and a port (a path, user info), which no browser sends."""
    if not header:
        return None
    try:
        parts = urlsplit(f"//{header}")
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return None
    if parts.netloc != header or parts.username is not None or not parts.hostname:
        return None
    try:
        return host_name(parts.hostname)
    except ValueError:
        return None


def origin(text: str) -> str:
    """`text` as a web origin, `scheme://host[:port]`, the way browsers send the `Origin`
    header: lower case, the scheme's default port left out. ValueError when it is not one."""
    refused = ValueError(
        f"{text!r} is not an origin: give scheme, host and port only, such as "
        "https://threadline.example.com or http://localhost:5173"
    )
    try:
        parts = urlsplit(text.strip())
        port = parts.port
        name = host_name(parts.hostname or "")
    except ValueError as error:
        raise refused from error
    scheme = parts.scheme.lower()
    extra = parts.path not in ("", "/") or parts.query or parts.fragment or parts.username
    if scheme not in DEFAULT_PORTS or extra:
        raise refused
    at = f":{port}" if port is not None and port != DEFAULT_PORTS[scheme] else ""
    return f"{scheme}://{shown(name)}{at}"
