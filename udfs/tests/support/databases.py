"""Real MariaDB and PostgreSQL servers for the tests that Debezium captures: each on a free
loopback port, everything (data, sockets, logs, binlog/WAL) inside a folder the caller gives
(a pytest tmp folder), never a system service and never /etc's configuration.

Both have a database `shop` and a user Debezium logs in as (`user`/`password`); `connect()` is
the administrator's connection the workload writes with. `stop()` shuts down cleanly, `kill()`
as a crash would, and `start()` again restarts on the same data and port. Use as a context
manager or with try/finally so that a failing test leaves no server behind.

MariaDB is set up as Debezium's MariaDB connector needs it: binlog in ROW format with FULL row
images, server id 1, the server's time zone UTC. PostgreSQL: wal_level=logical, and a
publication `dbz_publication` FOR ALL TABLES in `shop` (Debezium's default name), made by the
superuser because its user may not (FOR ALL TABLES needs a superuser), so Debezium's default
`publication.autocreate.mode=all_tables` finds it; the test's tables, made by the superuser,
are readable by Debezium's user through default privileges.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import psycopg
import pymysql

from support.project import free_port

DATABASE = "shop"
DEBEZIUM_USER = "debezium"
DEBEZIUM_PASSWORD = "dbz"
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 60.0
# A Unix socket's path must fit in sockaddr_un (108 bytes with its NUL).
MAX_SOCKET_PATH = 107


ServerT = TypeVar("ServerT", bound="_Server")


class DatabaseError(RuntimeError):
    """A server could not be set up or started: the message says why and which log to read."""


@dataclass
class _Server:
    """What both servers share: the server's process, in a session of its own so that a
    signal to its group reaches it and not the tests; started by the subclass."""

    folder: Path
    port: int = field(default_factory=free_port)
    host: str = "127.0.0.1"
    user: str = DEBEZIUM_USER
    password: str = DEBEZIUM_PASSWORD
    database: str = DATABASE
    process: subprocess.Popen | None = field(default=None, repr=False)

    # The signal that shuts the server down cleanly.
    stop_signal: ClassVar[signal.Signals] = signal.SIGTERM
    name: ClassVar[str] = ""

    def __post_init__(self) -> None:
        self.folder = Path(self.folder).resolve()

    def __enter__(self: ServerT) -> ServerT:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def log_file(self) -> Path:
        raise NotImplementedError

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        """Clean shutdown; SIGKILL if it has not ended in STOP_TIMEOUT_S."""
        if self.running:
            assert self.process is not None
            os.killpg(self.process.pid, self.stop_signal)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def kill(self) -> None:
        """SIGKILL to the server and its children, as a crash would end them all."""
        if self.process is not None:
            # PostgreSQL's children make themselves session leaders: not in the leader's group.
            children = _children(self.process.pid)
            with contextlib.suppress(ProcessLookupError):  # ended, group and all
                os.killpg(self.process.pid, signal.SIGKILL)
            for child in children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGKILL)
            self.process.wait()
            _wait_gone(children)
        self.process = None

    def _spawn(self, argv: list[str], output: Path, **popen: Any) -> None:
        with output.open("ab") as out:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **popen,
            )

    def _wait_until_answers(self) -> None:
        """Poll with a real connection until it succeeds; fail naming the log (and leave no
        server behind)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        last: Exception | None = None
        while time.monotonic() < deadline:
            assert self.process is not None
            code = self.process.poll()
            if code is not None:
                self.process = None
                raise DatabaseError(f"{self.name} exited at start ({code}); see {self.log_file}")
            try:
                self._probe()
                return
            except Exception as error:  # not listening yet
                last = error
            except BaseException:  # interrupted: no server left running
                self.kill()
                raise
            time.sleep(0.2)
        self.kill()
        raise DatabaseError(
            f"{self.name} did not answer in {START_TIMEOUT_S:.0f} s ({last}); see {self.log_file}"
        )

    def _probe(self) -> None:
        raise NotImplementedError

    def connect(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # pid (comm) state ppid ...: comm may hold spaces and parentheses.
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _wait_gone(pids: list[int], timeout_s: float = 10.0) -> None:
    """Until the killed processes have been reaped (by init: they are not our children)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in pids):
        time.sleep(0.05)


def _check_socket_path(path: Path) -> None:
    if len(str(path)) > MAX_SOCKET_PATH:
        raise DatabaseError(
            f"the socket path {path} is longer than {MAX_SOCKET_PATH} bytes: use a shorter folder"
        )


def _binary(name: str, *folders: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for folder in folders:
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


@dataclass
class MariaDB(_Server):
    """A MariaDB server started with `--no-defaults` (no /etc/mysql), run as the current user
    (`--user=root` when root). `connect()` logs in as root over TCP; Debezium as `user`, who
    has the replication privileges and ALL on `shop`."""

    name: ClassVar[str] = "mariadbd"
    stop_signal: ClassVar[signal.Signals] = signal.SIGTERM

    @property
    def log_file(self) -> Path:
        return self.folder / "error.log"

    @property
    def socket(self) -> Path:
        return self.folder / "mysqld.sock"

    def start(self) -> None:
        """Install the system tables the first time, then start mariadbd and wait until it
        answers; the user, grants and `shop` are (re)made by an idempotent init file."""
        mariadbd = _binary("mariadbd", "/usr/sbin")
        install_db = _binary("mariadb-install-db", "/usr/bin")
        if not mariadbd or not install_db:
            raise DatabaseError(
                "MariaDB's server (mariadbd, mariadb-install-db) is not installed: "
                "`make test-deps` installs the Debian package mariadb-server "
                "(or, as root: apt-get install mariadb-server)"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        _check_socket_path(self.socket)
        data = self.folder / "data"
        if not (data / "mysql").is_dir():
            log = self.folder / "install.log"
            with log.open("wb") as out:
                done = subprocess.run(
                    [install_db, "--no-defaults", f"--datadir={data}", *self._user_option(),
                     "--auth-root-authentication-method=normal", "--skip-test-db",
                     "--skip-name-resolve", *self._speed_options()],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                )  # fmt: skip
            if done.returncode != 0:
                raise DatabaseError(f"mariadb-install-db failed; see {log}")
        (self.folder / "binlog").mkdir(exist_ok=True)
        init = self.folder / "init.sql"
        init.write_text(self._init_sql())
        argv = [
            mariadbd,
            "--no-defaults",
            *self._user_option(),
            f"--datadir={data}",
            f"--socket={self.socket}",
            f"--port={self.port}",
            f"--bind-address={self.host}",
            "--skip-name-resolve",
            f"--log-bin={self.folder / 'binlog' / 'mariadb-bin'}",
            "--binlog-format=ROW",
            "--binlog-row-image=FULL",
            "--server-id=1",
            "--default-time-zone=+00:00",
            "--character-set-server=utf8mb4",
            "--collation-server=utf8mb4_unicode_ci",
            f"--pid-file={self.folder / 'mariadbd.pid'}",
            f"--log-error={self.log_file}",
            f"--init-file={init}",
            "--performance-schema=OFF",
            "--max-connections=50",
            *self._speed_options(),
        ]
        self._spawn(argv, self.folder / "mariadbd.out")
        self._wait_until_answers()

    @staticmethod
    def _user_option() -> list[str]:
        # mariadbd refuses to run as root unless told to.
        return ["--user=root"] if os.geteuid() == 0 else []

    @staticmethod
    def _speed_options() -> list[str]:
        # Small, unsynced InnoDB: starts in about a second; a test's data need not survive
        # the machine crashing, only the server (kill() keeps what the OS has).
        return [
            "--innodb-buffer-pool-size=64M",
            "--innodb-log-file-size=16M",
            "--innodb-flush-log-at-trx-commit=2",
            "--innodb-doublewrite=0",
        ]

    def _init_sql(self) -> str:
        """Root over TCP (install-db makes root@localhost, a socket login only), Debezium's
        user with the privileges its connector documents, and the test database."""
        user = f"'{self.user}'@'%'"
        return "\n".join(
            [
                "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';",
                "GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;",
                f"CREATE USER IF NOT EXISTS {user} IDENTIFIED BY '{self.password}';",
                "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT,"
                f" SLAVE MONITOR, LOCK TABLES ON *.* TO {user};",
                f"CREATE DATABASE IF NOT EXISTS `{self.database}`"
                " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;",
                f"GRANT ALL ON `{self.database}`.* TO {user};",
                "",
            ]
        )

    def _probe(self) -> None:
        self.connect(None).close()

    def connect(self, database: str | None = DATABASE) -> pymysql.connections.Connection:
        """Root's connection (autocommit, utf8mb4) to `database` (None: no default database).
        Bytes are sent as _binary literals, so arbitrary bytes reach BLOB columns unchanged."""
        return pymysql.connect(
            host=self.host,
            port=self.port,
            user="root",
            password="",
            database=database,
            charset="utf8mb4",
            autocommit=True,
            binary_prefix=True,
            connect_timeout=5,
        )


def postgres_bindir() -> Path | None:
    """The newest installed server's bin folder (Debian's /usr/lib/postgresql/N/bin), else
    pg_config's."""
    found = [
        path
        for path in Path("/usr/lib/postgresql").glob("*/bin")
        if (path / "postgres").is_file() and path.parent.name.isdigit()
    ]
    if found:
        return max(found, key=lambda path: int(path.parent.name))
    pg_config = shutil.which("pg_config")
    if pg_config:
        bindir = subprocess.run(
            [pg_config, "--bindir"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if bindir and (Path(bindir) / "postgres").is_file():
            return Path(bindir)
    return None


@dataclass
class Postgres(_Server):
    """A PostgreSQL server (the newest installed) with its own data folder. initdb and postgres
    refuse to run as root: as root the folder is given to the `postgres` system user and both
    run as that user, with the capability to traverse folders it cannot otherwise enter
    (pytest's /tmp/pytest-of-root is private to root). `connect()` logs in as the superuser
    `postgres`; Debezium as `user` (LOGIN REPLICATION, owner of `shop`), both with passwords
    (scram-sha-256) over TCP."""

    name: ClassVar[str] = "postgres"
    # SIGTERM would wait for every client (a replication connection never leaves); SIGINT is
    # the fast shutdown: clients are disconnected, WAL is flushed, the cluster shut down cleanly.
    stop_signal: ClassVar[signal.Signals] = signal.SIGINT
    superuser: ClassVar[str] = "postgres"
    superuser_password: ClassVar[str] = "postgres"
    publication: ClassVar[str] = "dbz_publication"

    @property
    def log_file(self) -> Path:
        return self.folder / "postgres.log"

    def start(self) -> None:
        """initdb the first time, start postgres, wait until it answers, and make Debezium's
        user, `shop` and the publication if they are not there yet."""
        bindir = postgres_bindir()
        if bindir is None or not (bindir / "initdb").is_file():
            raise DatabaseError(
                "PostgreSQL's server (postgres, initdb) is not installed: `make test-deps` "
                "installs the Debian package postgresql (or, as root: apt-get install postgresql)"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        _check_socket_path(self.folder / f".s.PGSQL.{self.port}")
        as_user = self._as_postgres()
        data = self.folder / "data"
        fresh = not (data / "PG_VERSION").is_file()
        if fresh:
            secret = self.folder / "superuser.password"
            secret.write_text(self.superuser_password + "\n")
            self._give_folder()
            log = self.folder / "initdb.log"
            with log.open("wb") as out:
                done = subprocess.run(
                    [*as_user, str(bindir / "initdb"), "-D", str(data), "-U", self.superuser,
                     f"--pwfile={secret}", "--auth-local=trust", "--auth-host=scram-sha-256",
                     "--encoding=UTF8", "--no-locale", "--no-sync", "--no-instructions"],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                )  # fmt: skip
            if done.returncode != 0:
                raise DatabaseError(f"initdb failed; see {log}")
            with (data / "postgresql.conf").open("a") as conf:
                conf.write(self._settings())
            (data / "pg_hba.conf").write_text(
                "local all all trust\n"
                "host all all 127.0.0.1/32 scram-sha-256\n"
                "host replication all 127.0.0.1/32 scram-sha-256\n"
            )
        self._give_folder()
        # The port is given on the command line, not in postgresql.conf, so that a caller may
        # change `port` between a stop and a start.
        self._spawn(
            [*as_user, str(bindir / "postgres"), "-D", str(data), "-p", str(self.port)],
            self.log_file,
        )
        self._wait_until_answers()
        try:
            self._ensure_objects()
        except BaseException:
            self.kill()
            raise

    def _settings(self) -> str:
        settings = {
            "listen_addresses": f"'{self.host}'",
            "unix_socket_directories": f"'{self.folder}'",
            "wal_level": "logical",
            "max_wal_senders": "10",
            "max_replication_slots": "10",
            "timezone": "'UTC'",
            "log_timezone": "'UTC'",
            "max_connections": "40",
            "shared_buffers": "32MB",
            # A test's data need not survive the machine crashing, only kill(): each commit is
            # still written to the OS (synchronous_commit stays on), just not synced.
            "fsync": "off",
            "full_page_writes": "off",
        }
        return "\n# Set by udfs/tests/support/databases.py\n" + "".join(
            f"{key} = {value}\n" for key, value in settings.items()
        )

    @staticmethod
    def _as_postgres() -> list[str]:
        """The command prefix that runs a program as the `postgres` user when we are root."""
        if os.geteuid() != 0:
            return []
        setpriv = _binary("setpriv", "/usr/bin")
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            setpriv = None
        if setpriv is None:
            raise DatabaseError(
                "as root, PostgreSQL must run as the `postgres` system user through setpriv "
                "(util-linux): the postgresql package creates that user"
            )
        return [setpriv, "--reuid=postgres", "--regid=postgres", "--init-groups",
                "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"]  # fmt: skip

    def _give_folder(self) -> None:
        """As root, the folder and all in it belong to `postgres` (initdb and postgres check
        the data folder's owner; the socket is made in the folder)."""
        if os.geteuid() != 0:
            return
        entry = pwd.getpwnam("postgres")
        for path in [self.folder, *self.folder.rglob("*")]:
            os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)

    def _ensure_objects(self) -> None:
        with self.connect("postgres") as admin:
            if not admin.execute(
                "SELECT 1 FROM pg_roles WHERE rolname = %s", (self.user,)
            ).fetchone():
                admin.execute(
                    f"CREATE ROLE \"{self.user}\" LOGIN REPLICATION PASSWORD '{self.password}'"
                )
            if not admin.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (self.database,)
            ).fetchone():
                admin.execute(f'CREATE DATABASE "{self.database}" OWNER "{self.user}"')
        with self.connect() as shop:
            shop.execute(
                f'ALTER DEFAULT PRIVILEGES FOR ROLE "{self.superuser}" IN SCHEMA public '
                f'GRANT SELECT ON TABLES TO "{self.user}"'
            )
            if not shop.execute(
                "SELECT 1 FROM pg_publication WHERE pubname = %s", (self.publication,)
            ).fetchone():
                shop.execute(f'CREATE PUBLICATION "{self.publication}" FOR ALL TABLES')

    def _probe(self) -> None:
        self.connect("postgres").close()

    def connect(self, dbname: str = DATABASE) -> psycopg.Connection:
        """The superuser's connection (autocommit) to `dbname`; the session's TimeZone is the
        server's, UTC."""
        return psycopg.connect(
            host=self.host,
            port=self.port,
            user=self.superuser,
            password=self.superuser_password,
            dbname=dbname,
            autocommit=True,
            connect_timeout=5,
        )
