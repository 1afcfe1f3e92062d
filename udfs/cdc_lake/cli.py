"""`cdc-lake`: start, stop and inspect the embedded server; load raw messages; run SQL."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

from cdc_lake import auth, server
from cdc_lake.client import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    DEFAULT_USER,
    PASSWORD_ENV,
    ClientError,
    Credentials,
    connect,
    run,
)
from cdc_lake.formats import FORMATS
from cdc_lake.kafka_loader import JAAS_ENV


def project_root(start: Path | None = None) -> Path:
    """The nearest directory holding dbt_project.yml, from the working directory up."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "dbt_project.yml").exists():
            return candidate
    return here


def default_home() -> Path:
    return Path(os.environ.get("CDC_LAKE_HOME") or project_root() / ".cdc-lake")


def conf_pair(text: str) -> tuple[str, str]:
    """A `--conf key=value` argument as (key, value), split at the first `=` (a value may
    hold more, as Java options do); shared by `cdc-lake serve` and the benchmarks."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--conf takes key=value, got {text!r}")
    return key.strip(), value


def option_pair(text: str) -> tuple[str, str]:
    """A `--kafka-option key=value` argument as (key, value)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"--kafka-option takes key=value, got {text!r}")
    return key.strip(), value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cdc-lake", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    def with_server_address(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--host", default=DEFAULT_HOST, help="Thrift host (env CDC_LAKE_HOST)")
        sub.add_argument("--port", type=int, default=DEFAULT_PORT, help="(env CDC_LAKE_PORT)")

    def with_credentials(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--user", default=DEFAULT_USER, help="(env CDC_LAKE_USER)")
        sub.add_argument(
            "--tls", action="store_true", help="TLS, verifying the server's certificate"
        )
        sub.add_argument(
            "--tls-ca",
            type=Path,
            default=os.environ.get("CDC_LAKE_TLS_CA"),
            metavar="PEM",
            help="trust this certificate (or CA) instead of the system's (env CDC_LAKE_TLS_CA)",
        )
        sub.epilog = f"The password, if the server asks for one, is read from {PASSWORD_ENV}."

    serve = commands.add_parser(
        "serve",
        help="start the Spark Thrift server with the UDFs",
        epilog="Listens on loopback only unless authentication is configured (--auth ldap, or "
        "KERBEROS/CUSTOM through --conf spark.hadoop.hive.server2.authentication=...) or "
        f"--insecure is given. The keystore's password is read from "
        f"{auth.KEYSTORE_PASSWORD_ENV}.",
    )
    with_server_address(serve)
    serve.add_argument("--home", type=Path, default=None, help="data folder (.cdc-lake/)")
    serve.add_argument("--master", default="local[*]", help="Spark master (local[*])")
    serve.add_argument(
        "--conf",
        type=conf_pair,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Spark setting, repeatable",
    )
    serve.add_argument("--foreground", action="store_true", help="stay attached")
    serve.add_argument(
        "--auth",
        choices=("none", "ldap"),
        default="none",
        help="how clients log in: none, or ldap (a user's password checked by a bind)",
    )
    serve.add_argument("--ldap-url", help="e.g. ldaps://ldap.example.com (with --auth ldap)")
    serve.add_argument("--ldap-base-dn", help="users are uid=<user>,<this DN>")
    serve.add_argument(
        "--ldap-user-dn-pattern",
        help="or a user's DN from this pattern, %%s the user, e.g. "
        "'uid=%%s,ou=people,dc=example,dc=com' (several: colon-separated)",
    )
    serve.add_argument(
        "--tls-keystore",
        type=Path,
        help=f"TLS on the Thrift port with this JKS or PKCS12 keystore (its password in "
        f"{auth.KEYSTORE_PASSWORD_ENV})",
    )
    serve.add_argument(
        "--insecure",
        action="store_true",
        help="allow a non-loopback --host WITHOUT authentication: anyone who reaches the port "
        "can run any SQL and Java code on the server; only on a network you trust",
    )

    for name, text in (("stop", "stop the background server"), ("status", "is it running?")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("--home", type=Path, default=None)

    load = commands.add_parser("load", help="append raw messages to cdc_raw.<format>")
    with_server_address(load)
    with_credentials(load)
    load.add_argument("--format", required=True, choices=sorted(FORMATS), dest="fmt")
    load.add_argument(
        "--encoding",
        choices=("auto", "text", "base64"),
        default="auto",
        help="how each message value is written in the files: as text (JSON formats), or as "
        "base64 of its bytes (binary formats such as dts_avro); auto: base64 for files named "
        "*.b64 or *.base64, else text",
    )
    load.add_argument(
        "--source",
        default=None,
        metavar="NAME",
        help="name of the source these messages came from (a database server, a sync task; "
        "1-64 of A-Z a-z 0-9 . _ -): its tables get table keys NAME/db.table, apart from "
        "another source's tables of the same name; default: none (db.table)",
    )
    kafka = load.add_argument_group(
        "from Kafka",
        f"Read the topics' new messages with Spark's Kafka source, exactly once (the offset "
        f"ledger cdc_raw.kafka_offsets). SASL's JAAS text is read from {JAAS_ENV}.",
    )
    kafka.add_argument("--kafka", metavar="BOOTSTRAP", help="the brokers, host:port[,...]")
    load.add_argument(
        "--topic",
        metavar="T[,T...]",
        help="with --kafka: the topics to read; of files: the Kafka topic their bare messages "
        "were read from, for formats that name a table only there (Debezium from Flink CDC's "
        "writer); a kcat -J envelope's own topic wins",
    )
    kafka.add_argument(
        "--topic-pattern",
        metavar="REGEX",
        help="or every topic whose whole name matches this Python regular expression",
    )
    kafka.add_argument(
        "--kafka-option",
        type=option_pair,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Kafka consumer setting (kafka.<setting>) or a Spark Kafka source option, "
        "repeatable; secrets belong in the environment, not here",
    )
    kafka.add_argument(
        "--max-messages",
        type=int,
        metavar="N",
        help="read at most N offsets in this load (the rest waits for the next)",
    )
    kafka.add_argument(
        "--allow-data-loss",
        action="store_true",
        help="when retention deleted messages before they were landed, land the rest and "
        "record the gap (default: fail naming it)",
    )
    load.add_argument("paths", nargs="*", type=Path, metavar="PATH")

    follow = commands.add_parser(
        "follow",
        help="keep landing Kafka topics and building the models",
        description="Loop: land every configured topic's new messages (exactly once), run dbt "
        "build when anything arrived or the last build failed, print one line, wait.",
    )
    with_server_address(follow)
    with_credentials(follow)
    follow.add_argument(
        "--config",
        type=Path,
        required=True,
        metavar="FILE",
        help="the topics, their formats and the dbt selection (profiles/follow.example.yml)",
    )
    follow.add_argument(
        "--interval",
        type=float,
        metavar="S",
        help="seconds to wait after each cycle (default: the config's interval, else 60)",
    )
    follow.add_argument("--cycles", type=int, metavar="N", help="stop after N cycles")
    follow.epilog = (
        f"{follow.epilog} SASL's JAAS text is read from {JAAS_ENV}. SIGINT or SIGTERM stop it "
        "once the current load or build has finished."
    )

    sql = commands.add_parser("sql", help="run SQL statements and print the rows")
    with_server_address(sql)
    with_credentials(sql)
    sql.add_argument("statements", nargs="+", metavar="SQL")
    return parser


def _config(args: argparse.Namespace) -> server.ServerConfig:
    return server.ServerConfig(
        home=(args.home or default_home()).resolve(),
        host=getattr(args, "host", DEFAULT_HOST),
        port=getattr(args, "port", DEFAULT_PORT),
        master=getattr(args, "master", "local[*]"),
        conf=dict(getattr(args, "conf", [])),
        jars=server.bundled_jars(project_root()),
    )


def serve_config(args: argparse.Namespace) -> server.ServerConfig:
    """The server's settings from `serve`'s options; a user's --conf wins over --auth/--tls."""
    security: dict[str, str] = {}
    ldap_options = (args.ldap_url, args.ldap_base_dn, args.ldap_user_dn_pattern)
    if args.auth == "ldap":
        if not args.ldap_url:
            raise auth.SecurityError("--auth ldap needs --ldap-url (e.g. ldaps://ldap.example.com)")
        security |= auth.ldap_settings(*ldap_options)
    elif any(ldap_options):
        raise auth.SecurityError(
            "--ldap-url, --ldap-base-dn and --ldap-user-dn-pattern need --auth ldap"
        )
    if args.tls_keystore:
        security |= auth.tls_settings(args.tls_keystore)
    config = _config(args)
    return dataclasses.replace(config, conf=security | config.conf, insecure=args.insecure)


def credentials(args: argparse.Namespace) -> Credentials:
    return Credentials.from_environment(args.user, args.tls, args.tls_ca)


def cleartext_warning(config: server.ServerConfig) -> str | None:
    """Passwords sent in clear over a network deserve a word, not a refusal."""
    conf = server.spark_conf(config)
    if auth.authenticates(conf) and not auth.uses_tls(conf) and not auth.is_loopback(config.host):
        return (
            f"cdc-lake: warning: passwords reach {config.host}:{config.port} in clear text; "
            "add --tls-keystore (or serve on loopback behind an SSH tunnel)"
        )
    return None


def print_rows(description: list | None, rows: list[tuple]) -> None:
    """Rows as tab-separated text with a header line."""
    if description:
        print("\t".join(column[0] for column in description))
    for row in rows:
        print("\t".join("NULL" if value is None else str(value) for value in row))


def load(args: argparse.Namespace) -> int:
    """`cdc-lake load`: files, or with --kafka the topics' new messages."""
    if args.kafka is None:
        if not args.paths:
            raise ValueError("name the files or folders to load, or --kafka BOOTSTRAP")
        if args.topic_pattern or args.kafka_option or args.max_messages or args.allow_data_loss:
            raise ValueError("--topic-pattern, --kafka-option, --max-messages and "
                             "--allow-data-loss go with --kafka")  # fmt: skip
        from cdc_lake.loader import load_files

        with connect(args.host, args.port, credentials(args)) as cursor:
            results = load_files(
                cursor, args.fmt, args.paths, args.encoding, args.source, args.topic
            )
            for result in results:
                print(result.describe(args.fmt, args.source))
        return 0
    if args.paths:
        raise ValueError("--kafka reads topics, not files: leave out the paths")
    from cdc_lake.kafka_loader import KafkaSource, load_kafka

    source = KafkaSource(
        bootstrap=args.kafka,
        topics=tuple(t.strip() for t in (args.topic or "").split(",") if t.strip()),
        pattern=args.topic_pattern,
        options=dict(args.kafka_option),
    )
    with connect(args.host, args.port, credentials(args)) as cursor:
        result = load_kafka(
            cursor, args.fmt, source, args.source, args.allow_data_loss, args.max_messages
        )
    print(result.describe(args.fmt, args.source))
    return 0


def follow(args: argparse.Namespace) -> int:
    """`cdc-lake follow`: cycles until --cycles or a signal (see cdc_lake.follow)."""
    from cdc_lake.follow import Follower, check_interval, load_config

    config = load_config(args.config)
    if args.interval is not None:
        config = dataclasses.replace(config, interval_s=check_interval(args.interval, "--interval"))
    if args.cycles is not None and args.cycles < 1:
        raise ValueError("--cycles must be at least 1")
    environ = dict(os.environ, CDC_LAKE_HOST=args.host, CDC_LAKE_PORT=str(args.port))
    follower = Follower(
        config=config,
        connect=lambda: connect(args.host, args.port, credentials(args)),
        project=project_root(),
        environ=environ,
    )
    follower.follow(args.cycles, echo=lambda line: print(line, flush=True))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            config = serve_config(args)
            warning = cleartext_warning(config)
            if warning:
                print(warning, file=sys.stderr)
            if args.foreground:
                server.run_foreground(config)
            else:
                pid = server.start_background(config)
                print(
                    f"cdc-lake server running on {config.host}:{config.port} (pid {pid}); "
                    f"log: {config.log_file}"
                )
        elif args.command == "stop":
            pid = server.stop(_config(args))
            print("no cdc-lake server running" if pid is None else f"stopped (pid {pid})")
        elif args.command == "status":
            line = server.status(_config(args))
            print(line or "not running")
            return 0 if line else 3
        elif args.command == "load":
            return load(args)
        elif args.command == "follow":
            return follow(args)
        elif args.command == "sql":
            with connect(args.host, args.port, credentials(args)) as cursor:
                for statement in args.statements:
                    rows = run(cursor, statement)
                    print_rows(cursor.description, rows)
    except (server.ServerError, ClientError, OSError, ValueError) as error:
        print(f"cdc-lake: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
