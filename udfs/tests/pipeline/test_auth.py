"""The README's cluster recipe, secured, for real: an OpenLDAP `slapd` started here with one
user, `cdc-lake serve --host 0.0.0.0 --auth ldap --tls-keystore` (a certificate made now with
the JDK's keytool), and dbt's `cluster` profile and `cdc-lake load`/`sql` logging in with
credentials from the environment. A wrong password, no TLS, and an untrusted certificate are
refused.

This module starts its own server (its own home and port) and does not use the session's.
slapd comes from Debian's `slapd` package: `make test-deps` installs it.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.project import PROJECT_ROOT, free_port

from cdc_lake import auth, server
from cdc_lake.client import PASSWORD_ENV, ClientError, Credentials, connect, run

pytestmark = pytest.mark.spark

SUFFIX = "dc=cdc-lake,dc=test"
USER = "analyst"
USER_DN_PATTERN = f"uid=%s,ou=people,{SUFFIX}"
# Debian's slapd: its schema files and loadable backends.
SCHEMAS = Path("/etc/ldap/schema")
MODULES = Path("/usr/lib/ldap")
CANAL_SAMPLES = PROJECT_ROOT / "seeds" / "samples" / "canal_json"
# The canal sample's change messages, staged by `dbt build` below (one row per row image).
DBT_SELECTION = ("canal__op_codes", "stg_canal__json", "int_cdc__staged_events")


@dataclass(frozen=True)
class Directory:
    url: str
    password: str  # the test user's


@dataclass(frozen=True)
class Certificate:
    keystore: Path
    keystore_password: str
    pem: Path  # the self-signed certificate, which a client trusts as its CA


def slapd_binaries() -> tuple[str, str]:
    """slapd and slapadd, or a failure saying how to install them (never a skip)."""
    found = [
        shutil.which(name) or (f"/usr/sbin/{name}" if Path(f"/usr/sbin/{name}").exists() else None)
        for name in ("slapd", "slapadd")
    ]
    if not all(found) or not (MODULES / "back_mdb.so").exists():
        pytest.fail(
            "these tests run a real OpenLDAP server: install Debian's slapd package "
            "(`make test-deps` as root, or apt-get install slapd)"
        )
    return found[0], found[1]


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Directory]:
    """slapd in the foreground on a free loopback port, with its own config and database."""
    slapd, slapadd = slapd_binaries()
    folder = tmp_path_factory.mktemp("slapd")
    (folder / "db").mkdir()
    password = secrets.token_urlsafe(12)
    config = folder / "slapd.conf"
    config.write_text(
        "\n".join(
            [
                *(
                    f"include {SCHEMAS / name}.schema"
                    for name in ("core", "cosine", "inetorgperson")
                ),
                f"modulepath {MODULES}",
                "moduleload back_mdb",
                f"pidfile {folder / 'slapd.pid'}",
                "database mdb",
                "maxsize 10485760",
                f'suffix "{SUFFIX}"',
                f"directory {folder / 'db'}",
                "",
            ]
        )
    )
    entries = folder / "entries.ldif"
    entries.write_text(
        f"dn: {SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: cdc-lake\n"
        "o: cdc-lake\n\n"
        f"dn: ou=people,{SUFFIX}\nobjectClass: organizationalUnit\nou: people\n\n"
        f"dn: uid={USER},ou=people,{SUFFIX}\nobjectClass: inetOrgPerson\nuid: {USER}\n"
        f"cn: {USER}\nsn: {USER}\nuserPassword: {password}\n"
    )
    subprocess.run(
        [slapadd, "-f", str(config), "-l", str(entries)], check=True, capture_output=True
    )
    port = free_port()
    log = folder / "slapd.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [slapd, "-d", "0", "-h", f"ldap://127.0.0.1:{port}/", "-f", str(config)],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while not server.port_in_use("127.0.0.1", port):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"slapd did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.2)
        yield Directory(url=f"ldap://127.0.0.1:{port}", password=password)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A self-signed certificate for 127.0.0.1 and localhost in a PKCS12 keystore (keytool
    comes with every Java runtime Spark runs on)."""
    keytool = Path(os.path.realpath(server.find_java())).parent / "keytool"
    folder = tmp_path_factory.mktemp("tls")
    keystore, pem = folder / "server.p12", folder / "server.pem"
    password = secrets.token_urlsafe(12)
    common = ["-alias", "cdc-lake", "-keystore", str(keystore), "-storepass", password]
    subprocess.run(
        [
            *(str(keytool), "-genkeypair", *common, "-storetype", "PKCS12"),
            *("-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname", "CN=localhost"),
            *("-ext", "SAN=ip:127.0.0.1,dns:localhost", "-noprompt"),
        ],
        check=True,
        capture_output=True,
    )
    exported = subprocess.run(
        [str(keytool), "-exportcert", "-rfc", *common],
        check=True,
        capture_output=True,
        text=True,
    )
    pem.write_text(exported.stdout)
    return Certificate(keystore=keystore, keystore_password=password, pem=pem)


def cdc_lake(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cdc_lake.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


@pytest.fixture(scope="module")
def secured_server(
    directory: Directory, certificate: Certificate, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[server.ServerConfig]:
    """The README's recipe: every interface, LDAP logins, TLS; the keystore password in the
    environment only."""
    config = server.ServerConfig(
        home=tmp_path_factory.mktemp("cdc-lake-secured-home"), host="0.0.0.0", port=free_port()
    )
    env = os.environ | {auth.KEYSTORE_PASSWORD_ENV: certificate.keystore_password}
    try:
        done = cdc_lake(
            *("serve", "--home", str(config.home), "--host", config.host),
            *("--port", str(config.port), "--auth", "ldap", "--ldap-url", directory.url),
            *("--ldap-user-dn-pattern", USER_DN_PATTERN),
            *("--tls-keystore", str(certificate.keystore)),
            env=env,
        )
        assert done.returncode == 0, done.stderr
        yield config
    finally:
        server.stop(config)


def credentials(
    certificate: Certificate, password: str | None, tls: bool = True, trusted: bool = True
) -> Credentials:
    return Credentials(
        user=USER, password=password, tls=tls, tls_ca=certificate.pem if trusted else None
    )


def test_status_says_ldap_and_tls(secured_server: server.ServerConfig) -> None:
    line = server.status(secured_server)
    assert line is not None
    assert f"on 0.0.0.0:{secured_server.port}, accepting connections" in line
    assert "authentication LDAP, TLS" in line


def test_the_right_password_opens_a_session_as_that_user(
    secured_server: server.ServerConfig, directory: Directory, certificate: Certificate
) -> None:
    with connect(
        "127.0.0.1", secured_server.port, credentials(certificate, directory.password)
    ) as cursor:
        assert run(cursor, "select current_user()") == [(USER,)]


@pytest.mark.parametrize("password", ["wrong-password", "", None], ids=["wrong", "empty", "none"])
def test_a_wrong_or_missing_password_is_refused(
    secured_server: server.ServerConfig, certificate: Certificate, password: str | None
) -> None:
    with (
        pytest.raises(ClientError, match=r"no session opened .*Error validating the login"),
        connect("127.0.0.1", secured_server.port, credentials(certificate, password)),
    ):
        pass


def test_an_unknown_user_is_refused(
    secured_server: server.ServerConfig, directory: Directory, certificate: Certificate
) -> None:
    stranger = Credentials(
        user="mallory", password=directory.password, tls=True, tls_ca=certificate.pem
    )
    with (
        pytest.raises(ClientError, match="Error validating the login"),
        connect("127.0.0.1", secured_server.port, stranger),
    ):
        pass


def test_without_tls_no_session_opens(
    secured_server: server.ServerConfig, directory: Directory, certificate: Certificate
) -> None:
    plain = credentials(certificate, directory.password, tls=False)
    with (
        pytest.raises(ClientError, match="no session opened"),
        connect("127.0.0.1", secured_server.port, plain),
    ):
        pass


def test_the_client_refuses_a_certificate_it_does_not_trust(
    secured_server: server.ServerConfig, directory: Directory, certificate: Certificate
) -> None:
    untrusted = credentials(certificate, directory.password, trusted=False)
    with (
        pytest.raises(ClientError, match="CERTIFICATE_VERIFY_FAILED"),
        connect("127.0.0.1", secured_server.port, untrusted),
    ):
        pass


def test_no_secret_is_on_a_command_line(
    secured_server: server.ServerConfig, directory: Directory, certificate: Certificate
) -> None:
    """`ps` shows every process's arguments to every user of the machine."""
    command_lines = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            command_lines.append(cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:  # a process that ended meanwhile
            continue
    # The server's java process is among them: Spark settings given to pyspark are there.
    port_setting = f"hive.server2.thrift.port={secured_server.port}"
    assert any(port_setting in line for line in command_lines)
    for secret in (certificate.keystore_password, directory.password):
        assert not [line for line in command_lines if secret in line]


def cluster_env(
    port: int, password: str, certificate: Certificate, dbt_dirs: Path
) -> dict[str, str]:
    """The `cluster` profile's environment (profiles/profiles.yml), and the client's."""
    return os.environ | {
        "CDC_LAKE_TARGET": "cluster",
        "CDC_LAKE_CLUSTER_HOST": "127.0.0.1",
        "CDC_LAKE_CLUSTER_PORT": str(port),
        "CDC_LAKE_CLUSTER_USER": USER,
        "CDC_LAKE_CLUSTER_PASSWORD": password,
        "CDC_LAKE_CLUSTER_TLS": "true",
        "DBT_TARGET_PATH": str(dbt_dirs / "target"),
        "DBT_LOG_PATH": str(dbt_dirs / "logs"),
        PASSWORD_ENV: password,
    }


def dbt(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """dbt as a user runs it (its own process: the environment is the profile's only input)."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "dbt"), *args, "--profiles-dir", "profiles"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_load_and_dbt_build_with_credentials_from_the_environment(
    secured_server: server.ServerConfig,
    directory: Directory,
    certificate: Certificate,
    tmp_path: Path,
) -> None:
    env = cluster_env(secured_server.port, directory.password, certificate, tmp_path)
    client_options = ("--port", str(secured_server.port), "--user", USER, "--tls")
    client_options += ("--tls-ca", str(certificate.pem))
    loaded = cdc_lake(
        "load", *client_options, "--format", "canal_json", str(CANAL_SAMPLES), env=env
    )
    assert loaded.returncode == 0, loaded.stderr
    built = dbt(
        *("build", "--select", *DBT_SELECTION),
        *("--vars", json.dumps({"cdc_lake_formats": ["canal_json"]})),
        env=env,
    )
    assert built.returncode == 0, built.stdout[-3000:]
    assert "ERROR=0" in built.stdout
    counted = cdc_lake(
        "sql",
        *client_options,
        "select source_format, count(*) from cdc_lake_intermediate.int_cdc__staged_events "
        "group by source_format",
        env=env,
    )
    assert counted.returncode == 0, counted.stderr
    [header, row] = counted.stdout.strip().splitlines()
    assert header.startswith("source_format\t")
    format_name, events = row.split("\t")
    assert format_name == "canal_json"
    assert int(events) > 0


def test_dbt_with_a_wrong_password_is_refused(
    secured_server: server.ServerConfig, certificate: Certificate, tmp_path: Path
) -> None:
    env = cluster_env(secured_server.port, "wrong-password", certificate, tmp_path)
    shown = dbt("show", "--inline", "select 1 as one", env=env)
    assert shown.returncode != 0
    assert "Error validating the login" in shown.stdout


def test_the_spark_ui_is_off(
    secured_server: server.ServerConfig, directory: Directory, certificate: Certificate
) -> None:
    """It would listen on every interface, without a login, whatever --host says."""
    logged_in = credentials(certificate, directory.password)
    with connect("127.0.0.1", secured_server.port, logged_in) as cursor:
        assert run(cursor, "set spark.ui.enabled") == [("spark.ui.enabled", "false")]


def test_an_authenticated_user_is_fully_trusted(
    secured_server: server.ServerConfig, directory: Directory, certificate: Certificate
) -> None:
    """What the README's threat model says: logged in, SQL reaches Java on the driver."""
    logged_in = credentials(certificate, directory.password)
    with connect("127.0.0.1", secured_server.port, logged_in) as cursor:
        [[user_name]] = run(
            cursor, "select reflect('java.lang.System', 'getProperty', 'user.name')"
        )
    # The server's operating-system account, not the LDAP user's.
    assert user_name == pwd.getpwuid(os.getuid()).pw_name
