"""The loopback rule, the LDAP/TLS settings and the credential options, without Spark.

Whoever opens a session on the Thrift server can run Java on it, so the rule that matters is
the refusal: `cdc-lake serve` off loopback without authentication stops before anything
starts. pipeline/test_auth.py runs the same settings against a real directory and server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cdc_lake import auth, cli
from cdc_lake.client import Credentials
from cdc_lake.server import ServerConfig, spark_conf

LDAP = auth.ldap_settings("ldap://ldap.example.com", None, "uid=%s,ou=people,dc=example")

# --- is_loopback -----------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "127.4.5.6", "::1", "localhost"])
def test_loopback_hosts(host: str) -> None:
    assert auth.is_loopback(host)


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "", "10.1.2.3", "192.168.0.10", "fe80::1", "no-such-host.invalid"]
)
def test_exposed_or_unknown_hosts(host: str) -> None:
    assert not auth.is_loopback(host)


# --- check_exposure --------------------------------------------------------------------------


def test_off_loopback_without_authentication_is_refused_in_one_line() -> None:
    with pytest.raises(auth.SecurityError) as refused:
        auth.check_exposure("0.0.0.0", {}, insecure=False)
    message = str(refused.value)
    assert message.startswith("refusing to serve on 0.0.0.0 without authentication")
    assert "--auth ldap --ldap-url" in message
    assert "--insecure" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "conf",
    [
        {auth.AUTHENTICATION: "NONE"},
        {auth.AUTHENTICATION: "NOSASL"},
        # TLS encrypts; it does not say who connects.
        {auth.USE_TLS: "true", auth.KEYSTORE_PATH: "/k.p12"},
    ],
)
def test_settings_that_let_anyone_in_are_refused(conf: dict[str, str]) -> None:
    with pytest.raises(auth.SecurityError):
        auth.check_exposure("10.1.2.3", conf, insecure=False)


@pytest.mark.parametrize(
    "conf",
    [LDAP, {auth.AUTHENTICATION: "kerberos"}, {auth.AUTHENTICATION: "CUSTOM"}],
)
def test_authentication_allows_any_host(conf: dict[str, str]) -> None:
    auth.check_exposure("0.0.0.0", conf, insecure=False)


def test_insecure_allows_any_host_and_loopback_needs_nothing() -> None:
    auth.check_exposure("0.0.0.0", {}, insecure=True)
    auth.check_exposure("127.0.0.1", {}, insecure=False)


# --- settings --------------------------------------------------------------------------------


def test_ldap_settings_are_hiveserver2s() -> None:
    settings = auth.ldap_settings("ldaps://ldap.example.com", "ou=people,dc=example", None)
    assert settings == {
        "spark.hadoop.hive.server2.authentication": "LDAP",
        "spark.hadoop.hive.server2.authentication.ldap.url": "ldaps://ldap.example.com",
        "spark.hadoop.hive.server2.authentication.ldap.baseDN": "ou=people,dc=example",
    }


def test_ldap_system_properties_are_the_ldap_settings_without_spark_hadoop() -> None:
    conf = LDAP | {"spark.hadoop.hive.server2.thrift.port": "10000"}
    assert auth.ldap_system_properties(conf) == {
        "hive.server2.authentication.ldap.url": "ldap://ldap.example.com",
        "hive.server2.authentication.ldap.userDNPattern": "uid=%s,ou=people,dc=example",
    }


def test_tls_settings_name_an_existing_keystore(tmp_path: Path) -> None:
    keystore = tmp_path / "server.p12"
    with pytest.raises(auth.SecurityError, match="no such file"):
        auth.tls_settings(keystore)
    keystore.write_bytes(b"")
    assert auth.tls_settings(keystore) == {
        "spark.hadoop.hive.server2.use.SSL": "true",
        "spark.hadoop.hive.server2.keystore.path": str(keystore.resolve()),
    }


def test_the_keystore_password_comes_from_the_environment() -> None:
    tls = {auth.USE_TLS: "true"}
    assert auth.keystore_password({}, environ={}) == ""
    assert auth.keystore_password(tls, environ={auth.KEYSTORE_PASSWORD_ENV: "s3"}) == "s3"
    with pytest.raises(auth.SecurityError, match=auth.KEYSTORE_PASSWORD_ENV):
        auth.keystore_password(tls, environ={})


def test_the_spark_ui_is_off_unless_asked_for(tmp_path: Path) -> None:
    """It listens on every interface whatever --host says, with no authentication."""
    assert spark_conf(ServerConfig(home=tmp_path))["spark.ui.enabled"] == "false"
    asked = ServerConfig(home=tmp_path, conf={"spark.ui.enabled": "true"})
    assert spark_conf(asked)["spark.ui.enabled"] == "true"


# --- cli -------------------------------------------------------------------------------------


def cdc_lake(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cdc_lake.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_serve_off_loopback_without_authentication_is_refused(tmp_path: Path) -> None:
    done = cdc_lake("serve", "--host", "0.0.0.0", "--home", str(tmp_path), "--port", "1")
    assert done.returncode == 1
    assert done.stderr.startswith(
        "cdc-lake: error: refusing to serve on 0.0.0.0 without authentication"
    )
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "server.pid").exists()


def test_insecure_gets_past_the_refusal(tmp_path: Path) -> None:
    """Without Java the next check fails: the refusal was passed, nothing started."""
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(Path(sys.executable).parent)
    done = cdc_lake(
        "serve", "--host", "0.0.0.0", "--insecure", "--home", str(tmp_path), "--port", "1",
        env=env,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.startswith("cdc-lake: error: Java not found")


def test_serve_tls_without_the_keystore_password_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(auth.KEYSTORE_PASSWORD_ENV, raising=False)
    keystore = tmp_path / "server.p12"
    keystore.write_bytes(b"")
    argv = ["serve", "--home", str(tmp_path), "--port", "1", "--tls-keystore", str(keystore)]
    assert cli.main(argv) == 1
    assert f"in the environment variable {auth.KEYSTORE_PASSWORD_ENV}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--auth", "ldap"], "--auth ldap needs --ldap-url"),
        (["--ldap-url", "ldap://x"], "need --auth ldap"),
        (["--ldap-base-dn", "dc=x"], "need --auth ldap"),
    ],
)
def test_incomplete_ldap_options_are_one_line_errors(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["serve", "--home", str(tmp_path), "--port", "1", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_serve_options_become_settings_and_conf_wins(tmp_path: Path) -> None:
    keystore = tmp_path / "server.p12"
    keystore.write_bytes(b"")
    args = cli.build_parser().parse_args(
        [
            *("serve", "--host", "0.0.0.0", "--home", str(tmp_path)),
            *("--auth", "ldap", "--ldap-url", "ldap://ldap.example.com"),
            *("--ldap-base-dn", "ou=people,dc=example", "--tls-keystore", str(keystore)),
            *("--conf", "spark.hadoop.hive.server2.authentication.ldap.url=ldaps://other"),
        ]
    )
    config = cli.serve_config(args)
    assert config.conf == {
        "spark.hadoop.hive.server2.authentication": "LDAP",
        "spark.hadoop.hive.server2.authentication.ldap.url": "ldaps://other",
        "spark.hadoop.hive.server2.authentication.ldap.baseDN": "ou=people,dc=example",
        "spark.hadoop.hive.server2.use.SSL": "true",
        "spark.hadoop.hive.server2.keystore.path": str(keystore.resolve()),
    }
    assert not config.insecure


def test_passwords_off_loopback_without_tls_get_a_warning(tmp_path: Path) -> None:
    exposed = ServerConfig(home=tmp_path, host="0.0.0.0", conf=LDAP)
    assert "in clear text" in (cli.cleartext_warning(exposed) or "")
    assert cli.cleartext_warning(ServerConfig(home=tmp_path, conf=LDAP)) is None
    tls = LDAP | {auth.USE_TLS: "true"}
    assert cli.cleartext_warning(ServerConfig(home=tmp_path, host="0.0.0.0", conf=tls)) is None


@pytest.mark.parametrize("command", [["sql", "select 1"], ["load", "--format", "canal_json", "x"]])
def test_no_password_option_on_the_command_line(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """`ps` shows every process's arguments: the password comes from CDC_LAKE_PASSWORD."""
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args([command[0], "--password", "secret", *command[1:]])
    assert "unrecognized arguments: --password" in capsys.readouterr().err


def test_client_credentials_from_options_and_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CDC_LAKE_PASSWORD", "from-env")
    args = cli.build_parser().parse_args(
        ["sql", "--user", "analyst", "--tls", "--tls-ca", "/ca.pem", "select 1"]
    )
    assert cli.credentials(args) == Credentials(
        user="analyst", password="from-env", tls=True, tls_ca=Path("/ca.pem")
    )
    monkeypatch.setenv("CDC_LAKE_PASSWORD", "")  # empty: none (PLAIN refuses an empty one)
    assert cli.credentials(args).password is None
    monkeypatch.delenv("CDC_LAKE_PASSWORD")
    assert cli.credentials(args).password is None
