"""Opaque page cursors: the keyset position of the last row a page answered."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

from graph.errors import ThreadlineError, invalid

SEPARATOR = "|"


def encode(*parts: str) -> str:
    return base64.urlsafe_b64encode(SEPARATOR.join(parts).encode()).decode()


def decode(cursor: str, count: int) -> list[str]:
    try:
        parts = base64.urlsafe_b64decode(cursor.encode()).decode().split(SEPARATOR, count - 1)
    except (ValueError, binascii.Error) as error:
        raise _foreign(cursor) from error
    if len(parts) != count:
        raise _foreign(cursor)
    return parts


def thread_cursor(created: datetime, ident: str) -> str:
    return encode(created.isoformat(), ident)


def item_cursor(ordinal: int, index: int) -> str:
    return encode(str(ordinal), str(index))


def thread_position(cursor: str) -> tuple[datetime, str]:
    """Where a page of threads resumes: (createdAt, id) of the last one answered."""
    created, ident = decode(cursor, 2)
    try:
        return datetime.fromisoformat(created), ident
    except ValueError as error:
        raise _foreign(cursor) from error


def item_position(cursor: str) -> tuple[int, int]:
    """Where a page of a thread's items resumes: (run ordinal, index) of the last one."""
    ordinal, index = decode(cursor, 2)
    try:
        return int(ordinal), int(index)
    except ValueError as error:
        raise _foreign(cursor) from error


def _foreign(cursor: str) -> ThreadlineError:
    return invalid(f"Cursor {cursor!r} is not one this API issued.")
