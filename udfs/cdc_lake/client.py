"""A plain Thrift (HiveServer2) client for the cdc-lake server, as dbt-spark's thrift uses."""

from __future__ import annotations

import os
import socket
import ssl
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_HOST = os.environ.get("CDC_LAKE_HOST", "127.0.0.1")
DEFAULT_PORT = int(os.environ.get("CDC_LAKE_PORT", "10000"))
DEFAULT_USER = os.environ.get("CDC_LAKE_USER", "cdc-lake")
PASSWORD_ENV = "CDC_LAKE_PASSWORD"
CONNECT_TIMEOUT_S = 30.0


class ClientError(RuntimeError):
    """The server could not be reached or refused a statement; the message is one line."""


@dataclass(frozen=True)
class Credentials:
    """Who connects and how. A password (from CDC_LAKE_PASSWORD, never a command-line
    argument that `ps` shows) means a password login (SASL PLAIN, what LDAP and CUSTOM servers
    check; a server without authentication accepts any). `tls` verifies the server's
    certificate and name against `tls_ca` (a PEM file) or else the system's trusted CAs."""

    user: str = DEFAULT_USER
    password: str | None = None
    tls: bool = False
    tls_ca: Path | None = None

    @classmethod
    def from_environment(
        cls, user: str = DEFAULT_USER, tls: bool = False, tls_ca: Path | None = None
    ) -> Credentials:
        # An empty variable is no password: PLAIN refuses an empty one even where none is checked.
        password = os.environ.get(PASSWORD_ENV) or None
        return cls(user=user, password=password, tls=tls, tls_ca=tls_ca)


@contextmanager
def connect(
    host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, credentials: Credentials | None = None
) -> Iterator[Any]:
    """A PyHive cursor on the server; a one-line ClientError when nothing listens there or the
    server refuses the session (wrong password, TLS on one side only, untrusted certificate)."""
    from pyhive import hive

    credentials = credentials or Credentials()
    try:
        if credentials.tls:
            connection = hive.connect(
                thrift_transport=_tls_transport(host, port, credentials),
                username=credentials.user,
            )
        else:
            connection = hive.connect(
                host=host,
                port=port,
                username=credentials.user,
                auth="LDAP" if credentials.password is not None else None,
                password=credentials.password,
            )
    except Exception as error:
        raise ClientError(_connect_failure(host, port, error)) from error
    cursor = connection.cursor()
    try:
        yield cursor
    finally:
        # A server that died (or was killed) cannot close the session: the error that
        # matters is the one already raised, not this one.
        with suppress(Exception):
            cursor.close()
        with suppress(Exception):
            connection.close()


def _tls_transport(host: str, port: int, credentials: Credentials) -> Any:
    """SASL PLAIN over TLS, as dbt-spark's `use_ssl` builds it, but verifying the server:
    dbt-spark accepts any certificate, which stops eavesdroppers but not impostors. The
    handshake is done here, not by Thrift's TSSLSocket, which logs a failed verification and
    raises an unrelated error in its place."""
    import thrift_sasl
    from pyhive.sasl_compat import PureSASLClient
    from thrift.transport.TSocket import TSocket

    context = ssl.create_default_context(
        cafile=str(credentials.tls_ca) if credentials.tls_ca else None
    )
    plain = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
    try:
        secured = context.wrap_socket(plain, server_hostname=host)
    except BaseException:
        plain.close()
        raise
    secured.settimeout(None)  # statements may run for long; TSocket's default is no timeout
    thrift_socket = TSocket(host, port)
    thrift_socket.setHandle(secured)
    # PLAIN needs a non-empty password even for a server that checks none.
    password = credentials.password if credentials.password is not None else "x"

    def sasl_client() -> PureSASLClient:
        return PureSASLClient(host, mechanism="PLAIN", username=credentials.user, password=password)

    return thrift_sasl.TSaslClientTransport(sasl_client, "PLAIN", thrift_socket)


def _connect_failure(host: str, port: int, error: Exception) -> str:
    """Nothing listening, or a listener that refused the session: the two need different
    fixes, and PyHive's exception alone ('TSocket read 0 bytes') says neither."""
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError:
        return (
            f"cannot reach a Spark Thrift server at {host}:{port} ({type(error).__name__}); "
            "start one with `cdc-lake serve`"
        )
    detail = " ".join(str(error).split())[:300] or type(error).__name__
    return (
        f"the server at {host}:{port} accepted the connection but no session opened ({detail}); "
        f"check --user and {PASSWORD_ENV} against its authentication, and --tls/--tls-ca "
        "against its TLS"
    )


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
