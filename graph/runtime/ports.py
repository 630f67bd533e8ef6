"""Which local TCP ports are free, and which process listens on one.

The managed Neo4j must never mistake another program's server for its own, so
before a launch it tests its ports with a bind, and before it talks to a port
it checks that the listening socket belongs to the process it launched.
"""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path

LOOPBACK = "127.0.0.1"
# /proc/net/tcp state code of a listening socket.
TCP_LISTEN = "0A"
PROC_TCP_TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
# Where a server that must move goes: below every OS's ephemeral range (Linux starts at
# 32768), so outgoing connections never take its port while it is stopped, and at random,
# so two clones moving at once rarely pick the same one.
SPARE_PORTS = range(20000, 32768)


def is_free(port: int, host: str = LOOPBACK) -> bool:
    """True when nothing listens on host:port (a bind test, as the server will bind).

    SO_REUSEADDR, like the JVM's server sockets, so the TIME_WAIT connections
    of a server that just stopped do not make its own port look taken.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_ports(count: int, avoid: frozenset[int] = frozenset(), host: str = LOOPBACK) -> list[int]:
    """`count` distinct free ports, none in `avoid`, drawn at random from SPARE_PORTS."""
    found: list[int] = []
    candidates = [port for port in SPARE_PORTS if port not in avoid]
    for port in random.sample(candidates, len(candidates)):
        if len(found) == count:
            return found
        if is_free(port, host):
            found.append(port)
    if len(found) == count:
        return found
    raise OSError(f"no {count} free ports between {SPARE_PORTS.start} and {SPARE_PORTS.stop - 1}")


def listening_inodes(port: int) -> set[int] | None:
    """Socket inodes listening on `port` (IPv4 and IPv6); None without /proc."""
    inodes: set[int] = set()
    readable = False
    for table in PROC_TCP_TABLES:
        try:
            rows = table.read_text().splitlines()[1:]
        except OSError:
            continue
        readable = True
        for row in rows:
            fields = row.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == TCP_LISTEN and int(local.rsplit(":", 1)[1], 16) == port:
                inodes.add(int(inode))
    return inodes if readable else None


def held_by(pid: int, port: int) -> bool | None:
    """Whether process `pid` owns a socket listening on `port`; None when this cannot be told."""
    inodes = listening_inodes(port)
    if inodes is None:
        return None
    if not inodes:
        return False
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        fds = os.listdir(fd_dir)
    except FileNotFoundError:
        return False
    except PermissionError:
        return None
    return any(_socket_inode(fd_dir / fd) in inodes for fd in fds)


def _socket_inode(fd: Path) -> int | None:
    try:
        target = os.readlink(fd)
    except OSError:
        return None
    if not target.startswith("socket:["):
        return None
    return int(target[len("socket:[") : -1])
