"""A plain Thrift (HiveServer2) client for the cdc-lake server, as dbt-spark's thrift uses."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

DEFAULT_HOST = os.environ.get("CDC_LAKE_HOST", "127.0.0.1")
DEFAULT_PORT = int(os.environ.get("CDC_LAKE_PORT", "10000"))


class ClientError(RuntimeError):
    """The server could not be reached or refused a statement; the message is one line."""


@contextmanager
def connect(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> Iterator[Any]:
    """A PyHive cursor on the server; a one-line ClientError when nothing listens there."""
    from pyhive import hive

    try:
        connection = hive.connect(host=host, port=port, username="cdc-lake")
    except Exception as error:
        raise ClientError(
            f"cannot reach a Spark Thrift server at {host}:{port} ({type(error).__name__}); "
            "start one with `cdc-lake serve`"
        ) from error
    cursor = connection.cursor()
    try:
        yield cursor
    finally:
        cursor.close()
        connection.close()


def run(cursor: Any, statement: str) -> list[tuple]:
    """Execute one statement; rows for queries, [] otherwise. Server errors become ClientError."""
    try:
        cursor.execute(statement)
    except Exception as error:
        raise ClientError(_server_message(error)) from error
    return cursor.fetchall() if cursor.description else []


def _server_message(error: Exception) -> str:
    """The useful line of a HiveServer2 error (PyHive wraps it in a Thrift status struct)."""
    args = getattr(error, "args", ())
    status = getattr(args[0] if args else None, "status", None)
    message = getattr(status, "errorMessage", None) or str(error)
    first = message.strip().splitlines()[0] if message.strip() else type(error).__name__
    return first[:1000]
