"""The managed Neo4j's generated password is one neo4j-admin takes as its argument: an
earlier URL-safe token began with `-` about once in 64 starts and was read as an option."""

import string

from graph.runtime.local_neo4j import initial_password


def test_initial_passwords_are_long_hex_never_an_option() -> None:
    drawn = {initial_password() for _ in range(2000)}
    assert len(drawn) == 2000
    assert all(len(password) >= 32 for password in drawn)
    assert all(set(password) <= set(string.hexdigits) for password in drawn)
    assert not any(password.startswith("-") for password in drawn)
