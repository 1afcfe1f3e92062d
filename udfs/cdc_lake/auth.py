"""Who may use the Thrift server: the loopback rule, LDAP authentication and TLS settings.

Spark SQL calls Java methods (`reflect`, `java_method`), so whoever opens a session on the
Thrift server runs code on the driver as the server's user. `cdc-lake serve` therefore listens
on loopback only, unless the server authenticates its clients (LDAP here; KERBEROS or CUSTOM
through `--conf`) or the user says `--insecure`. Every authenticated user is fully trusted.

The settings are HiveServer2's (`hive.server2.*`), given to Spark as `spark.hadoop.*` so the
Thrift server's configuration has them. Two need more than that (server.py applies them):
Spark's `LdapAuthenticationProviderImpl` reads a new `HiveConf()` on every login, which sees
JVM system properties but not the server's configuration, so the LDAP settings are also system
properties; and the keystore's password comes from the environment, never from a command line
that `ps` shows.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Mapping
from pathlib import Path

AUTHENTICATION = "spark.hadoop.hive.server2.authentication"
LDAP_PREFIX = "spark.hadoop.hive.server2.authentication.ldap."
USE_TLS = "spark.hadoop.hive.server2.use.SSL"
KEYSTORE_PATH = "spark.hadoop.hive.server2.keystore.path"
KEYSTORE_PASSWORD_ENV = "CDC_LAKE_KEYSTORE_PASSWORD"
# HiveServer2 modes that check who connects (NONE and NOSASL accept anyone).
AUTHENTICATING_MODES = frozenset({"LDAP", "KERBEROS", "CUSTOM", "PAM"})


class SecurityError(ValueError):
    """Settings that would expose SQL (and so Java) to the network, or cannot secure it."""


def is_loopback(host: str) -> bool:
    """True when `host` names only loopback addresses: 127.0.0.0/8, ::1 or a name resolving
    to them. A name that does not resolve counts as exposed: better refused than guessed."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False
    return bool(addresses) and all(
        ipaddress.ip_address(address.split("%")[0]).is_loopback for address in addresses
    )


def ldap_settings(url: str, base_dn: str | None, user_dn_pattern: str | None) -> dict[str, str]:
    """Spark settings for LDAP logins: the server binds to `url` as the user's DN with the
    password the client sent (SASL PLAIN). The DN is `uid=<user>,<base_dn>`, or each
    `%s`-pattern of `user_dn_pattern` (colon-separated) in turn, or the user name itself."""
    settings = {AUTHENTICATION: "LDAP", LDAP_PREFIX + "url": url}
    if base_dn:
        settings[LDAP_PREFIX + "baseDN"] = base_dn
    if user_dn_pattern:
        settings[LDAP_PREFIX + "userDNPattern"] = user_dn_pattern
    return settings


def tls_settings(keystore: Path) -> dict[str, str]:
    """Spark settings for TLS on the Thrift port with this keystore (JKS or PKCS12); its
    password is read from CDC_LAKE_KEYSTORE_PASSWORD when the server starts."""
    if not keystore.is_file():
        raise SecurityError(f"--tls-keystore {keystore}: no such file")
    return {USE_TLS: "true", KEYSTORE_PATH: str(keystore.resolve())}


def authenticates(conf: Mapping[str, str]) -> bool:
    """True when these Spark settings make the Thrift server check who connects."""
    return conf.get(AUTHENTICATION, "NONE").strip().upper() in AUTHENTICATING_MODES


def uses_tls(conf: Mapping[str, str]) -> bool:
    return conf.get(USE_TLS, "false").strip().lower() == "true"


def check_exposure(host: str, conf: Mapping[str, str], insecure: bool) -> None:
    """Refuse to listen off loopback without authentication, unless `insecure` says so."""
    if insecure or is_loopback(host) or authenticates(conf):
        return
    raise SecurityError(
        f"refusing to serve on {host} without authentication: whoever reaches the port could "
        "run any SQL, Java methods included; add --auth ldap --ldap-url ldap://HOST "
        "--ldap-user-dn-pattern 'uid=%s,ou=people,dc=example,dc=com' (and --tls-keystore), "
        "or serve on 127.0.0.1 behind an SSH tunnel, or pass --insecure on a network you trust"
    )


def ldap_system_properties(conf: Mapping[str, str]) -> dict[str, str]:
    """The LDAP settings as the JVM system properties Spark's LDAP provider reads."""
    return {
        key.removeprefix("spark.hadoop."): value
        for key, value in conf.items()
        if key.startswith(LDAP_PREFIX)
    }


def keystore_password(conf: Mapping[str, str], environ: Mapping[str, str] = os.environ) -> str:
    """The keystore's password for a TLS server, from the environment; '' without TLS."""
    if not uses_tls(conf):
        return ""
    password = environ.get(KEYSTORE_PASSWORD_ENV)
    if not password:
        raise SecurityError(
            f"TLS needs the keystore's password in the environment variable "
            f"{KEYSTORE_PASSWORD_ENV} (never on the command line, where ps shows it)"
        )
    return password
