"""`cdc-lake`: start, stop and inspect the embedded server; load raw messages; run SQL."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from cdc_lake import server
from cdc_lake.client import DEFAULT_HOST, DEFAULT_PORT, ClientError, connect, run
from cdc_lake.formats import FORMATS


def project_root(start: Path | None = None) -> Path:
    """The nearest directory holding dbt_project.yml, from the working directory up."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "dbt_project.yml").exists():
            return candidate
    return here


def default_home() -> Path:
    return Path(os.environ.get("CDC_LAKE_HOME") or project_root() / ".cdc-lake")


def _conf_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--conf takes key=value, got {text!r}")
    return key.strip(), value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cdc-lake", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    def with_server_address(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--host", default=DEFAULT_HOST, help="Thrift host (env CDC_LAKE_HOST)")
        sub.add_argument("--port", type=int, default=DEFAULT_PORT, help="(env CDC_LAKE_PORT)")

    serve = commands.add_parser("serve", help="start the Spark Thrift server with the UDFs")
    with_server_address(serve)
    serve.add_argument("--home", type=Path, default=None, help="data folder (.cdc-lake/)")
    serve.add_argument("--master", default="local[*]", help="Spark master (local[*])")
    serve.add_argument(
        "--conf",
        type=_conf_pair,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Spark setting, repeatable",
    )
    serve.add_argument("--foreground", action="store_true", help="stay attached")

    for name, text in (("stop", "stop the background server"), ("status", "is it running?")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("--home", type=Path, default=None)

    load = commands.add_parser("load", help="append raw messages to cdc_raw.<format>")
    with_server_address(load)
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
    load.add_argument("paths", nargs="+", type=Path, metavar="PATH")

    sql = commands.add_parser("sql", help="run SQL statements and print the rows")
    with_server_address(sql)
    sql.add_argument("statements", nargs="+", metavar="SQL")
    return parser


def _config(args: argparse.Namespace) -> server.ServerConfig:
    return server.ServerConfig(
        home=(args.home or default_home()).resolve(),
        host=getattr(args, "host", DEFAULT_HOST),
        port=getattr(args, "port", DEFAULT_PORT),
        master=getattr(args, "master", "local[*]"),
        conf=dict(getattr(args, "conf", [])),
    )


def print_rows(description: list | None, rows: list[tuple]) -> None:
    """Rows as tab-separated text with a header line."""
    if description:
        print("\t".join(column[0] for column in description))
    for row in rows:
        print("\t".join("NULL" if value is None else str(value) for value in row))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "serve":
            config = _config(args)
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
            from cdc_lake.loader import load_files

            with connect(args.host, args.port) as cursor:
                results = load_files(cursor, args.fmt, args.paths, args.encoding, args.source)
                for result in results:
                    print(result.describe(args.fmt, args.source))
        elif args.command == "sql":
            with connect(args.host, args.port) as cursor:
                for statement in args.statements:
                    rows = run(cursor, statement)
                    print_rows(cursor.description, rows)
    except (server.ServerError, ClientError, OSError, ValueError) as error:
        print(f"cdc-lake: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
