"""Free ports and port ownership, on this machine's real sockets and /proc."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from graph.runtime.ports import SPARE_PORTS, free_ports, held_by, is_free


def test_free_ports_are_distinct_free_spare_and_avoid_what_they_are_told() -> None:
    avoid = frozenset(range(SPARE_PORTS.start, SPARE_PORTS.start + 100))
    ports = free_ports(3, avoid=avoid)
    assert len(set(ports)) == 3
    assert all(port in SPARE_PORTS and port not in avoid and is_free(port) for port in ports)
    assert free_ports(0) == []


def test_a_listening_port_is_taken_and_held_only_by_its_owner() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = int(sock.getsockname()[1])
        assert not is_free(port)
        assert held_by(os.getpid(), port) is True
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            assert held_by(other.pid, port) is False
        finally:
            other.kill()
            other.wait()
    assert is_free(port)
    assert held_by(os.getpid(), port) is False
