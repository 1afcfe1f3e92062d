"""A seeded workload of every kind of change, run on a real MariaDB or PostgreSQL
(support.databases) that Debezium captures, and `truth()`: the tables as the database holds
them, which the marts must equal.

Use: `w = Workload(kind, seed)`; `w.create_tables(conn)`; `w.snapshot_rows(conn)` before the
connector starts (its snapshot); then `w.run_steps(conn, w.steps(n))`, in as many batches as a
test likes (a fault between two steps, or between batches). The same seed and the same calls
give the same SQL with the same values. `run_for(conn, seconds, rate)` paces random steps for a
soak. `write_marker(conn, token)` writes one row a reader can wait for.

Tables (database `shop`; PostgreSQL's schema `public`), each database's native types:

- customers(id PK, name, balance, born, seen_at, local_at, opens, prefs, photo, active): every
  kind of value, many NULLs. `seen_at` is an instant: MariaDB TIMESTAMP(6) written from a
  session at time_zone '+05:30'; PostgreSQL timestamptz written as literals with offsets
  (+05:30, -08:00, ...). A column `tier` is added and later dropped while the stream runs.
- order_lines(order_id, line_no) composite key: qty, price, note (dropped late in the stream),
  discount (added while the stream runs); TRUNCATEd once, then refilled with the same keys.
- audit_events: no key (REPLICA IDENTITY FULL in PostgreSQL). Each row's `event` is unique, so
  rows can be matched although the table has no key.
- documents (PostgreSQL only): `body` ~20 KB of random text stored out of line (TOAST,
  STORAGE EXTERNAL, REPLICA IDENTITY DEFAULT): most updates leave it unchanged, for which
  Debezium sends its unavailable-value placeholder.
- big_rows: a ~300 KB `payload` row, inserted and updated.
- marker: the row `write_marker` writes.

Values as `truth()` returns them (the drivers' own types):

| column            | MariaDB (PyMySQL)                        | PostgreSQL (psycopg 3)           |
|-------------------|------------------------------------------|----------------------------------|
| int               | int                                      | int                              |
| varchar/text      | str                                      | str                              |
| decimal/numeric   | Decimal with the column's scale          | Decimal with the column's scale  |
| date              | datetime.date                            | datetime.date                    |
| seen_at (instant) | naive datetime, UTC (read at +00:00)     | aware datetime, tzinfo UTC       |
| local_at, at      | naive datetime                           | naive datetime                   |
| opens (time)      | datetime.timedelta since midnight        | datetime.time                    |
| prefs (JSON)      | str: the JSON text as written            | dict or list (jsonb, parsed)     |
| photo (binary)    | bytes                                    | bytes                            |
| active (boolean)  | int 0/1 (BOOLEAN is TINYINT(1))          | bool                             |

A rolled-back transaction writes the text ROLLBACK_MARK and keys from ROLLED_BACK_FROM up, so
that anything of it found downstream is told apart.
"""

from __future__ import annotations

import json
import random
import string
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from datetime import time as clock
from decimal import Decimal
from typing import Any, Literal

Kind = Literal["mariadb", "postgres"]
Row = dict[str, Any]

ROLLBACK_MARK = "rolled back: must not appear"
ROLLED_BACK_FROM = 900_000
DOCUMENT_CHARS = 20_000
BIG_ROW_CHARS = 300_000
# MariaDB's session zone when writing `seen_at`: the stored instant is this local time's.
MARIADB_WRITE_ZONE = "+05:30"
_IST = timezone(timedelta(hours=5, minutes=30))
_PG_OFFSETS = [
    _IST,
    timezone(timedelta(hours=-8)),
    timezone.utc,
    timezone(timedelta(hours=12, minutes=45)),
    timezone(timedelta(hours=-3, minutes=-30)),
]

_KEYS: dict[str, list[str]] = {
    "customers": ["id"],
    "order_lines": ["order_id", "line_no"],
    "audit_events": [],
    "documents": ["id"],
    "big_rows": ["id"],
    "marker": ["id"],
}

_DDL: dict[Kind, list[str]] = {
    "mariadb": [
        """CREATE TABLE customers (
            id INT NOT NULL PRIMARY KEY,
            name VARCHAR(100) NULL,
            balance DECIMAL(12,2) NULL,
            born DATE NULL,
            seen_at TIMESTAMP(6) NULL DEFAULT NULL,
            local_at DATETIME(6) NULL,
            opens TIME(6) NULL,
            prefs JSON NULL,
            photo BLOB NULL,
            active BOOLEAN NULL
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci""",
        """CREATE TABLE order_lines (
            order_id INT NOT NULL,
            line_no INT NOT NULL,
            qty INT NULL,
            price DECIMAL(10,3) NULL,
            note TEXT NULL,
            PRIMARY KEY (order_id, line_no)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci""",
        """CREATE TABLE audit_events (
            event VARCHAR(200) NULL,
            amount DECIMAL(14,4) NULL,
            at DATETIME(6) NULL
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci""",
        """CREATE TABLE big_rows (
            id INT NOT NULL PRIMARY KEY,
            payload MEDIUMTEXT NULL
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci""",
        """CREATE TABLE marker (
            id INT NOT NULL PRIMARY KEY,
            token VARCHAR(200) NULL
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci""",
    ],
    "postgres": [
        """CREATE TABLE customers (
            id integer PRIMARY KEY,
            name varchar(100),
            balance numeric(12,2),
            born date,
            seen_at timestamptz(6),
            local_at timestamp(6),
            opens time(6),
            prefs jsonb,
            photo bytea,
            active boolean
        )""",
        """CREATE TABLE order_lines (
            order_id integer NOT NULL,
            line_no integer NOT NULL,
            qty integer,
            price numeric(10,3),
            note text,
            PRIMARY KEY (order_id, line_no)
        )""",
        "CREATE TABLE audit_events (event varchar(200), amount numeric(14,4), at timestamp(6))",
        # Without a key, updates and deletes are only logged (and published) with every column.
        "ALTER TABLE audit_events REPLICA IDENTITY FULL",
        """CREATE TABLE documents (
            id integer PRIMARY KEY,
            title varchar(200),
            body text,
            revision integer
        )""",
        # Out of line and uncompressed whatever its size: an update leaving it unchanged does
        # not log it, which is the case Debezium's placeholder stands for.
        "ALTER TABLE documents ALTER COLUMN body SET STORAGE EXTERNAL",
        "ALTER TABLE documents REPLICA IDENTITY DEFAULT",
        "CREATE TABLE big_rows (id integer PRIMARY KEY, payload text)",
        "CREATE TABLE marker (id integer PRIMARY KEY, token varchar(200))",
    ],
}

# The columns the stream adds: customers.tier (dropped again later), order_lines.discount.
_TIER_TYPE = {"mariadb": "VARCHAR(10) NULL", "postgres": "varchar(10)"}
_DISCOUNT_TYPE = {"mariadb": "DECIMAL(5,2) NULL", "postgres": "numeric(5,2)"}

_TRICKY_NAMES = [
    "Zoë O'Brien",
    "back\\slash \\n not a newline",
    '"double" quotes',
    "emoji 😀🦄 beyond the BMP",
    "𝄞 musical symbol",
    "中文名字",
    "日本語のテキスト",
    "Ελληνικά",
    "עברית",
    "tab\tand\nnewline",
    "",
    "  padded  ",
    "semi;colon -- not a comment",
    "percent % and %s",
    "NULL",
    "ä" * 100,
]
_FIRST = ["Ana", "Björn", "Chloé", "Dmitri", "Eun-ji", "Faisal", "Gráinne", "Hiroshi", "Ilse"]
_LAST = ["Müller", "Nguyễn", "O'Neil", "Pérez", "Quist", "Røed", "Şahin", "Tanaka", "陈"]
_JSON_KEYS = ["theme", "tags", "limits", "名前", "emoji😀", 'quote"d', "back\\slash", "nested"]
_JSON_STRINGS = ["dark", "", "ünïcödé", "😀", "line\nbreak", 'say "hi"', "C:\\path", "中文"]
_NOTES = ["gift wrap", "leave at door 🚪", "fragile — handle with care", "", "naïve café", None]
_EVENTS = ["login", "refund", "charge", "export", "password-reset", "ошибка"]
_TIERS = ["gold", "silver", "bronze", "ünï", None]
_TEXT = string.ascii_letters + string.digits + " .,;"
# A value per table that the random values never take: an update that must change something.
_NEVER = {"name": "changed", "qty": 7_777_777, "amount": Decimal("-7777777.7777")}


def tables(kind: Kind) -> list[str]:
    """Every table of the workload in that database, in creation order."""
    names = ["customers", "order_lines", "audit_events", "documents", "big_rows", "marker"]
    return [name for name in names if kind == "postgres" or name != "documents"]


def keys(kind: Kind, table: str) -> list[str]:
    """The table's primary key columns; [] for audit_events, which has none."""
    if table not in tables(kind):
        raise KeyError(f"{kind} has no table {table}")
    return list(_KEYS[table])


def kind_of(conn: Any) -> Kind:
    """Which database a connection (PyMySQL or psycopg) is to."""
    return "postgres" if type(conn).__module__.startswith("psycopg") else "mariadb"


Statement = tuple[str, tuple[Any, ...]]
Mode = Literal["transaction", "ddl", "rollback"]


@dataclass(frozen=True)
class Step:
    """One unit of the stream: a committed transaction, a DDL statement (committed by itself),
    or a transaction rolled back. `changes` is how many change events it commits: one per row
    inserted, updated or deleted, one for a TRUNCATE, none for DDL or a rollback."""

    number: int
    action: str
    kind: Kind
    mode: Mode
    statements: tuple[Statement, ...]
    changes: int

    def describe(self) -> str:
        first = " ".join(self.statements[0][0].split())[:70] if self.statements else ""
        more = f" (+{len(self.statements) - 1} more)" if len(self.statements) > 1 else ""
        return (
            f"step {self.number} {self.action} [{self.mode}, {self.changes} changes]: {first}{more}"
        )

    def run(self, conn: Any) -> None:
        if self.kind == "mariadb":
            self._run_mariadb(conn)
        else:
            self._run_postgres(conn)

    def _run_mariadb(self, conn: Any) -> None:
        with conn.cursor() as cursor:
            cursor.execute(f"SET time_zone = '{MARIADB_WRITE_ZONE}'")
            if self.mode == "ddl":
                for sql, params in self.statements:
                    cursor.execute(sql, params)
                return
            conn.begin()
            try:
                for sql, params in self.statements:
                    cursor.execute(sql, params)
            except BaseException:
                conn.rollback()
                raise
            if self.mode == "rollback":
                conn.rollback()
            else:
                conn.commit()

    def _run_postgres(self, conn: Any) -> None:
        if self.mode == "ddl":
            for sql, params in self.statements:
                conn.execute(sql, params)
            return
        with conn.transaction(force_rollback=self.mode == "rollback"):
            for sql, params in self.statements:
                conn.execute(sql, params)


@dataclass
class _State:
    """What the database holds, as the workload wrote it: the steps it generates choose keys
    that exist (or existed) from it and make every update change a value."""

    customers: dict[int, Row] = field(default_factory=dict)
    deleted_customers: list[int] = field(default_factory=list)
    next_customer: int = 1
    lines: dict[tuple[int, int], Row] = field(default_factory=dict)
    next_order: int = 1
    audit: dict[str, Row] = field(default_factory=dict)
    next_event: int = 1
    documents: dict[int, Row] = field(default_factory=dict)
    next_document: int = 1
    big_rows: dict[int, Row] = field(default_factory=dict)
    next_big_row: int = 1
    tier: bool = False
    # A dropped column is never added again (support/truth_compare.py says why).
    tier_dropped: bool = False
    discount: bool = False
    note: bool = True


# The changes every workload makes once, in this order, spread over the steps asked for.
_SCENARIOS: list[str] = [
    "rollback",
    "delete_customer",
    "pk_update_customer",
    "big_insert",
    "add_tier",
    "use_tier",
    "multi_table",
    "reinsert_customer",
    "pk_update_line",
    "audit_update",
    "audit_delete",
    "document_title",
    "truncate_lines",
    "refill_lines",
    "big_update",
    "document_body",
    "add_discount",
    "use_discount",
    "rollback",
    "drop_tier",
    "insert_customers",
    "drop_note",
    "insert_lines",
]
_POSTGRES_ONLY = {"document_title", "document_body", "document_insert", "document_delete"}

# The mix of ordinary steps (weights); DDL and TRUNCATE come from the scenarios (and rarely,
# in run_for).
_MIX: dict[str, int] = {
    "insert_customers": 14,
    "update_customer": 16,
    "delete_customer": 6,
    "reinsert_customer": 3,
    "pk_update_customer": 2,
    "insert_lines": 10,
    "update_line": 10,
    "delete_line": 5,
    "pk_update_line": 2,
    "audit_insert": 6,
    "audit_update": 4,
    "audit_delete": 3,
    "multi_table": 8,
    "rollback": 2,
    "document_insert": 2,
    "document_title": 6,
    "document_body": 2,
    "document_delete": 1,
    "big_insert": 1,
    "big_update": 1,
}


class Workload:
    """The seeded changes for one database. Generating steps updates the workload's idea of
    the database, so steps must be run in the order generated, each once."""

    def __init__(self, kind: Kind, seed: int) -> None:
        if kind not in ("mariadb", "postgres"):
            raise ValueError(f"unknown database kind {kind!r}")
        self.kind: Kind = kind
        self.seed = seed
        self.rng = random.Random(seed)
        self.state = _State()
        self.scenarios = [s for s in _SCENARIOS if kind == "postgres" or s not in _POSTGRES_ONLY]
        self.mix = {a: w for a, w in _MIX.items() if kind == "postgres" or a not in _POSTGRES_ONLY}
        self.generated = 0

    # ---------- set-up
    def create_tables(self, conn: Any) -> None:
        """Create the tables (in the connection's database, `shop`)."""
        for sql in _DDL[self.kind]:
            Step(0, "create", self.kind, "ddl", ((sql, ()),), 0).run(conn)

    def snapshot_steps(self) -> list[Step]:
        """The rows there before the connector starts: one transaction per table."""
        rng = self.rng
        customers = [self._new_customer(all_null=i == 4) for i in range(25)]
        lines = [row for _ in range(8) for row in self._new_order(rng.randint(1, 4))]
        events = [self._new_event() for _ in range(8)]
        batches: list[tuple[str, list[Row]]] = [
            ("customers", customers),
            ("order_lines", lines),
            ("audit_events", events),
        ]
        if self.kind == "postgres":
            batches.append(("documents", [self._new_document() for _ in range(5)]))
        self._remember(customers=customers, lines=lines, events=events)
        steps = []
        for table, rows in batches:
            statements = tuple(self._insert(table, row) for row in rows)
            steps.append(self._step(f"snapshot {table}", "transaction", statements, len(rows)))
        return steps

    def snapshot_rows(self, conn: Any) -> int:
        """Insert the snapshot's rows; how many."""
        return self.run_steps(conn, self.snapshot_steps())

    # ---------- the stream
    def steps(self, count: int) -> list[Step]:
        """The next `count` steps: the scenarios not made yet, spread evenly among them (as
        many as fit), and ordinary steps from the seeded mix between them."""
        pending = self.scenarios[: min(count, len(self.scenarios))]
        self.scenarios = self.scenarios[len(pending) :]
        # Distinct places, in order, since len(pending) <= count.
        places = {(i + 1) * count // (len(pending) + 1): s for i, s in enumerate(pending)}
        return [
            self._make(places[i] if i in places else self._ordinary(self.mix)) for i in range(count)
        ]

    def run_steps(self, conn: Any, steps: list[Step]) -> int:
        """Run the steps in order; how many changes they committed."""
        for step in steps:
            step.run(conn)
        return sum(step.changes for step in steps)

    def run_for(self, conn: Any, seconds: float, changes_per_second: float) -> int:
        """Random steps at about `changes_per_second` for `seconds`; how many changes were
        committed. Only rarely a schema change or a TRUNCATE, and no big rows: a soak's
        changes are small."""
        mix = {a: w for a, w in self.mix.items() if not a.startswith("big_")}
        start = time.monotonic()
        done = 0
        while (elapsed := time.monotonic() - start) < seconds:
            ahead = done / changes_per_second - elapsed
            if ahead > 0:
                time.sleep(min(ahead, seconds - elapsed))
                continue
            roll = self.rng.random()
            if roll < 0.001 and not self.state.tier_dropped:
                action = "drop_tier" if self.state.tier else "add_tier"
            elif roll < 0.0015:
                action = "truncate_lines"
            else:
                action = self._ordinary(mix)
            step = self._make(action)
            step.run(conn)
            done += step.changes
        return done

    # ---------- steps
    def _ordinary(self, mix: dict[str, int]) -> str:
        return self.rng.choices(list(mix), weights=list(mix.values()))[0]

    def _step(
        self, action: str, mode: Mode, statements: tuple[Statement, ...], changes: int
    ) -> Step:
        self.generated += 1
        return Step(self.generated, action, self.kind, mode, statements, changes)

    def _make(self, action: str) -> Step:
        """The step for `action`, falling back to an insert when there is nothing to change."""
        st, rng = self.state, self.rng
        if (
            action in ("update_customer", "delete_customer", "pk_update_customer")
            and not st.customers
        ):
            action = "insert_customers"
        if action in ("update_line", "delete_line", "pk_update_line") and not st.lines:
            action = "insert_lines"
        if action in ("audit_update", "audit_delete") and not st.audit:
            action = "audit_insert"
        if action in ("document_title", "document_body", "document_delete") and not st.documents:
            action = "document_insert"
        if action == "big_update" and not st.big_rows:
            action = "big_insert"
        if action == "reinsert_customer" and not st.deleted_customers:
            action = "delete_customer" if st.customers else "insert_customers"
        if action == "use_tier" and not st.tier:  # run_for dropped it meanwhile
            action = "insert_customers"

        if action == "insert_customers":
            rows = [self._new_customer() for _ in range(rng.randint(1, 3))]
            self._remember(customers=rows)
            return self._transaction(action, [self._insert("customers", r) for r in rows])
        if action == "reinsert_customer":
            key = st.deleted_customers.pop(rng.randrange(len(st.deleted_customers)))
            row = self._new_customer(key=key)
            self._remember(customers=[row])
            return self._transaction(action, [self._insert("customers", row)])
        if action == "use_tier":
            rows = [self._new_customer() for _ in range(2)]
            for row in rows:
                row["tier"] = rng.choice(_TIERS[:-1])
            self._remember(customers=rows)
            statements = [self._insert("customers", r) for r in rows]
            key = self._pick(st.customers)
            tier = "silver" if st.customers[key].get("tier") == "gold" else "gold"
            statements.append(self._update_customer(key, tier=tier))
            return self._transaction(action, statements)
        if action == "update_customer":
            return self._transaction(action, [self._update_customer(self._pick(st.customers))])
        if action == "delete_customer":
            return self._transaction(action, [self._delete_customer(self._pick(st.customers))])
        if action == "pk_update_customer":
            return self._transaction(action, [self._move_customer(self._pick(st.customers))])
        if action == "insert_lines":
            rows = self._new_order(rng.randint(1, 4))
            self._remember(lines=rows)
            return self._transaction(action, [self._insert("order_lines", r) for r in rows])
        if action == "use_discount":
            rows = self._new_order(2)
            for row in rows:
                row["discount"] = Decimal(rng.randint(0, 5000)).scaleb(-2)
            self._remember(lines=rows)
            statements = [self._insert("order_lines", r) for r in rows]
            key = self._pick(st.lines)
            discount = Decimal("12.50") if st.lines[key].get("discount") is None else None
            statements.append(self._update_line(key, discount=discount))
            return self._transaction(action, statements)
        if action == "update_line":
            return self._transaction(action, [self._update_line(self._pick(st.lines))])
        if action == "delete_line":
            return self._transaction(action, [self._delete_line(self._pick(st.lines))])
        if action == "pk_update_line":
            return self._transaction(action, [self._move_line(self._pick(st.lines))])
        if action == "audit_insert":
            rows = [self._new_event() for _ in range(rng.randint(1, 2))]
            self._remember(events=rows)
            return self._transaction(action, [self._insert("audit_events", r) for r in rows])
        if action == "audit_update":
            return self._transaction(action, [self._update_event(self._pick(st.audit))])
        if action == "audit_delete":
            return self._transaction(action, [self._delete_event(self._pick(st.audit))])
        if action == "multi_table":
            return self._multi_table()
        if action == "rollback":
            return self._rollback()
        if action == "truncate_lines":
            st.lines.clear()
            return self._step(action, "ddl", (("TRUNCATE TABLE order_lines", ()),), 1)
        if action == "refill_lines":
            # The keys the table had before its TRUNCATE come back.
            rows = [r for order in (1, 2, 3) for r in self._new_order(2, order_id=order)]
            self._remember(lines=rows)
            return self._transaction(action, [self._insert("order_lines", r) for r in rows])
        if action in ("add_tier", "drop_tier", "add_discount", "drop_note"):
            return self._schema_change(action)
        if action == "document_insert":
            row = self._new_document()
            st.documents[row["id"]] = {"id": row["id"], "revision": 1}
            return self._transaction(action, [self._insert("documents", row)])
        if action == "document_title":
            key = self._pick(st.documents)
            title = f"{rng.choice(_TRICKY_NAMES[:10])} rev {st.documents[key]['revision'] + 1}"
            st.documents[key]["revision"] += 1
            sql = "UPDATE documents SET title = %s, revision = revision + 1 WHERE id = %s"
            return self._transaction(action, [(sql, (title, key))])
        if action == "document_body":
            key = self._pick(st.documents)
            st.documents[key]["revision"] += 1
            sql = "UPDATE documents SET body = %s, revision = revision + 1 WHERE id = %s"
            return self._transaction(action, [(sql, (self._text(DOCUMENT_CHARS), key))])
        if action == "document_delete":
            key = self._pick(st.documents)
            del st.documents[key]
            return self._transaction(action, [("DELETE FROM documents WHERE id = %s", (key,))])
        if action == "big_insert":
            key = st.next_big_row
            st.next_big_row += 1
            st.big_rows[key] = {"id": key}
            row = {"id": key, "payload": self._text(BIG_ROW_CHARS)}
            return self._transaction(action, [self._insert("big_rows", row)])
        if action == "big_update":
            key = self._pick(st.big_rows)
            sql = "UPDATE big_rows SET payload = %s WHERE id = %s"
            return self._transaction(action, [(sql, (self._text(BIG_ROW_CHARS), key))])
        raise ValueError(f"unknown action {action!r}")

    def _transaction(self, action: str, statements: list[Statement]) -> Step:
        return self._step(action, "transaction", tuple(statements), len(statements))

    def _multi_table(self) -> Step:
        """Several tables in one commit: inserts, updates and a delete."""
        st, rng = self.state, self.rng
        statements: list[Statement] = []
        customers = [self._new_customer() for _ in range(rng.randint(1, 2))]
        statements += [self._insert("customers", r) for r in customers]
        self._remember(customers=customers)
        statements.append(self._update_customer(self._pick(st.customers)))
        lines = self._new_order(2)
        statements += [self._insert("order_lines", r) for r in lines]
        self._remember(lines=lines)
        statements.append(self._update_line(self._pick(st.lines)))
        event = self._new_event()
        statements.append(self._insert("audit_events", event))
        self._remember(events=[event])
        if len(st.customers) > 3:
            statements.append(self._delete_customer(self._pick(st.customers)))
        return self._transaction("multi_table", statements)

    def _rollback(self) -> Step:
        """A transaction over several tables that is rolled back: nothing of it may show."""
        st = self.state
        key = ROLLED_BACK_FROM + self.generated
        statements: list[Statement] = [
            self._insert(
                "customers", {**self._customer_values(), "id": key, "name": ROLLBACK_MARK}
            ),
        ]
        if st.customers:
            statements.append(
                (
                    "UPDATE customers SET name = %s, balance = NULL WHERE id = %s",
                    (ROLLBACK_MARK, self._pick(st.customers)),
                )
            )
        line = {"order_id": key, "line_no": 1, "qty": 1, "price": Decimal("1.000")}
        if st.note:
            line["note"] = ROLLBACK_MARK
        statements.append(self._insert("order_lines", line))
        if st.audit:
            event = self._pick(st.audit)
            statements.append(("DELETE FROM audit_events WHERE event = %s", (event,)))
        if self.kind == "postgres" and st.documents:
            sql = "UPDATE documents SET title = %s WHERE id = %s"
            statements.append((sql, (ROLLBACK_MARK, self._pick(st.documents))))
        return self._step("rollback", "rollback", tuple(statements), 0)

    def _schema_change(self, action: str) -> Step:
        """ADD or DROP COLUMN while the stream runs. A column added is NULL in the rows there,
        as it has no default: no row changes without a change event."""
        st = self.state
        if action in ("add_tier", "drop_tier") and st.tier == (action == "add_tier"):
            return self._make("update_customer")  # already so: run_for toggles it
        if action == "add_tier":
            st.tier = True
            sql = f"ALTER TABLE customers ADD COLUMN tier {_TIER_TYPE[self.kind]}"
        elif action == "drop_tier":
            st.tier = False
            st.tier_dropped = True
            for row in st.customers.values():
                row.pop("tier", None)
            sql = "ALTER TABLE customers DROP COLUMN tier"
        elif action == "add_discount":
            st.discount = True
            sql = f"ALTER TABLE order_lines ADD COLUMN discount {_DISCOUNT_TYPE[self.kind]}"
        else:
            st.note = False
            for row in st.lines.values():
                row.pop("note", None)
            sql = "ALTER TABLE order_lines DROP COLUMN note"
        return self._step(action, "ddl", ((sql, ()),), 0)

    # ---------- rows
    def _pick(self, rows: dict) -> Any:
        # Sorted: a dict's order depends on history only, but keys of mixed history read
        # clearer sorted, and random.choice needs a sequence.
        return self.rng.choice(sorted(rows))

    def _remember(
        self, customers: Sequence[Row] = (), lines: Sequence[Row] = (), events: Sequence[Row] = ()
    ) -> None:
        st = self.state
        for row in customers:
            st.customers[row["id"]] = row
        for row in lines:
            st.lines[(row["order_id"], row["line_no"])] = row
        for row in events:
            st.audit[row["event"]] = row

    def _new_customer(self, key: int | None = None, all_null: bool = False) -> Row:
        st = self.state
        if key is None:
            key = st.next_customer
            st.next_customer += 1
        values = self._customer_values()
        if all_null:
            values = dict.fromkeys(values)
        row = {"id": key, **values}
        if st.tier:
            row["tier"] = None if all_null else self.rng.choice(_TIERS)
        return row

    def _customer_values(self) -> Row:
        rng = self.rng
        return {
            "name": _maybe(rng, _name),
            "balance": _maybe(rng, _decimal, 12, 2),
            "born": _maybe(rng, _date),
            "seen_at": _maybe(rng, _instant),
            "local_at": _maybe(rng, _local),
            "opens": _maybe(rng, _clock),
            "prefs": _maybe(rng, _json_value),
            "photo": _maybe(rng, _bytes),
            "active": _maybe(rng, lambda r: r.random() < 0.5),
        }

    def _update_customer(self, key: int, **fixed: Any) -> Statement:
        """Some columns to new values (NULL among them), always changing at least one."""
        row = self.state.customers[key]
        values = fixed or self._changed(row, self._customer_values(), self.rng.randint(1, 4))
        if self.state.tier and not fixed and self.rng.random() < 0.5:
            values["tier"] = self.rng.choice(_TIERS)
        row.update(values)
        return self._update("customers", values, {"id": key})

    def _delete_customer(self, key: int) -> Statement:
        del self.state.customers[key]
        self.state.deleted_customers.append(key)
        return ("DELETE FROM customers WHERE id = %s", (key,))

    def _move_customer(self, key: int) -> Statement:
        """A new primary key for the row (Debezium: a delete of the old key, a create)."""
        st = self.state
        new = st.next_customer
        st.next_customer += 1
        row = st.customers.pop(key)
        row["id"] = new
        st.customers[new] = row
        return ("UPDATE customers SET id = %s WHERE id = %s", (new, key))

    def _new_order(self, count: int, order_id: int | None = None) -> list[Row]:
        st = self.state
        if order_id is None:
            order_id = st.next_order
            st.next_order += 1
        return [
            {"order_id": order_id, "line_no": n, **self._line_values()} for n in range(1, count + 1)
        ]

    def _line_values(self) -> Row:
        rng, st = self.rng, self.state
        values: Row = {
            "qty": _maybe(rng, lambda r: r.choice([r.randint(-5, 1000), 2**31 - 1, -(2**31)])),
            "price": _maybe(rng, _decimal, 10, 3),
        }
        if st.note:
            values["note"] = rng.choice(_NOTES)
        if st.discount:
            values["discount"] = _maybe(rng, _decimal, 5, 2)
        return values

    def _update_line(self, key: tuple[int, int], **fixed: Any) -> Statement:
        row = self.state.lines[key]
        values = fixed or self._changed(row, self._line_values(), self.rng.randint(1, 2))
        row.update(values)
        return self._update("order_lines", values, {"order_id": key[0], "line_no": key[1]})

    def _delete_line(self, key: tuple[int, int]) -> Statement:
        del self.state.lines[key]
        return ("DELETE FROM order_lines WHERE order_id = %s AND line_no = %s", key)

    def _move_line(self, key: tuple[int, int]) -> Statement:
        st = self.state
        order_id, line_no = key
        new = max(n for o, n in st.lines if o == order_id) + 1
        row = st.lines.pop(key)
        row["line_no"] = new
        st.lines[(order_id, new)] = row
        sql = "UPDATE order_lines SET line_no = %s WHERE order_id = %s AND line_no = %s"
        return (sql, (new, order_id, line_no))

    def _new_event(self) -> Row:
        st, rng = self.state, self.rng
        event = f"evt-{st.next_event:05d} {rng.choice(_EVENTS)}"
        st.next_event += 1
        return {"event": event, **self._event_values()}

    def _event_values(self) -> Row:
        return {"amount": _maybe(self.rng, _decimal, 14, 4), "at": _maybe(self.rng, _local)}

    def _update_event(self, event: str) -> Statement:
        row = self.state.audit[event]
        values = self._changed(row, self._event_values(), self.rng.randint(1, 2))
        row.update(values)
        return self._update("audit_events", values, {"event": event})

    def _delete_event(self, event: str) -> Statement:
        del self.state.audit[event]
        return ("DELETE FROM audit_events WHERE event = %s", (event,))

    def _new_document(self) -> Row:
        st = self.state
        key = st.next_document
        st.next_document += 1
        title = f"{self.rng.choice(_TRICKY_NAMES[:10])} rev 1"
        return {"id": key, "title": title, "body": self._text(DOCUMENT_CHARS), "revision": 1}

    def _text(self, chars: int) -> str:
        """Random letters: pglz finds nothing to compress, so PostgreSQL stores it out of line."""
        return "".join(self.rng.choices(_TEXT, k=chars))

    def _changed(self, row: Row, candidates: Row, count: int) -> Row:
        """`count` columns of `candidates`, at least one of them differing from `row`: an
        update that changes nothing is logged by PostgreSQL but not by MariaDB."""
        names = self.rng.sample(sorted(candidates), min(count, len(candidates)))
        values = {name: candidates[name] for name in names}
        if all(row.get(name) == value for name, value in values.items()):
            differing = [n for n in sorted(candidates) if row.get(n) != candidates[n]]
            if differing:
                values[differing[0]] = candidates[differing[0]]
            else:  # every candidate equals the row (all NULL, say): one that cannot
                name = next(n for n in _NEVER if n in candidates)
                values[name] = _NEVER[name]
        return values

    # ---------- SQL
    def _insert(self, table: str, row: Row) -> Statement:
        columns = list(row)
        marks = ", ".join(self._placeholder(c) for c in columns)
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
        return (sql, tuple(self._param(c, row[c]) for c in columns))

    def _update(self, table: str, values: Row, where: Row) -> Statement:
        sets = ", ".join(f"{c} = {self._placeholder(c)}" for c in values)
        condition = " AND ".join(f"{c} = %s" for c in where)
        sql = f"UPDATE {table} SET {sets} WHERE {condition}"
        return (sql, (*(self._param(c, v) for c, v in values.items()), *where.values()))

    def _placeholder(self, column: str) -> str:
        if self.kind == "postgres" and column == "prefs":
            return "%s::jsonb"
        if self.kind == "postgres" and column == "seen_at":
            return "%s::timestamptz"
        return "%s"

    def _param(self, column: str, value: Any) -> Any:
        """A value as the statement sends it: JSON as text, an instant as a literal (MariaDB:
        the local time at the session's +05:30; PostgreSQL: with an offset chosen by seed)."""
        if value is None:
            return None
        if column == "prefs":
            return json.dumps(value, ensure_ascii=False)
        if column == "seen_at":
            if self.kind == "mariadb":
                return value.astimezone(_IST).strftime("%Y-%m-%d %H:%M:%S.%f")
            # Chosen by the value, not the generator: both databases draw the same values.
            offset = _PG_OFFSETS[(value.microsecond + value.second) % len(_PG_OFFSETS)]
            return value.astimezone(offset).isoformat(sep=" ")
        return value


# ---------- values
def _maybe(rng: random.Random, make: Any, *args: Any) -> Any:
    """NULL about one time in five."""
    return None if rng.random() < 0.2 else make(rng, *args)


def _name(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(_TRICKY_NAMES)
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _decimal(rng: random.Random, digits: int, scale: int) -> Decimal:
    """Within the column's precision, the extremes and zero among them."""
    top = 10**digits - 1
    if rng.random() < 0.05:
        units = rng.choice([top, -top, 0, 1, -1])
    else:
        bound = min(top, 10**8)
        units = rng.randint(-bound, bound)
    return Decimal(units).scaleb(-scale)


def _date(rng: random.Random) -> date:
    if rng.random() < 0.15:
        return rng.choice(
            [
                date(1900, 1, 1),
                date(1969, 12, 31),
                date(1970, 1, 1),
                date(2000, 2, 29),
                date(9999, 12, 31),
            ]
        )
    return date(1930, 1, 1) + timedelta(days=rng.randint(0, 80 * 365))


def _instant(rng: random.Random) -> datetime:
    """Within MariaDB TIMESTAMP's range (1970-01-01 00:00:01 to 2038-01-19 03:14:07 UTC)."""
    if rng.random() < 0.1:
        return rng.choice(
            [
                datetime(1970, 1, 1, 0, 0, 1, tzinfo=timezone.utc),
                datetime(2038, 1, 19, 3, 14, 7, 999999, tzinfo=timezone.utc),
                datetime(2024, 3, 31, 1, 30, tzinfo=timezone.utc),
            ]
        )
    start = datetime(1970, 1, 2, tzinfo=timezone.utc)
    return start + timedelta(
        seconds=rng.randint(0, 2_100_000_000), microseconds=rng.randint(0, 999_999)
    )


def _local(rng: random.Random) -> datetime:
    if rng.random() < 0.1:
        return rng.choice(
            [
                datetime(1900, 1, 1),
                datetime(1969, 12, 31, 23, 59, 59, 999999),
                datetime(1970, 1, 1),
                datetime(9999, 12, 31, 23, 59, 59, 999999),
            ]
        )
    start = datetime(1900, 1, 1)
    return start + timedelta(
        seconds=rng.randint(0, 200 * 365 * 86400), microseconds=rng.randint(0, 999_999)
    )


def _clock(rng: random.Random) -> clock:
    if rng.random() < 0.15:
        return rng.choice([clock(0, 0), clock(23, 59, 59, 999999), clock(12, 0, 0, 1)])
    return clock(
        rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999_999)
    )


def _json_value(rng: random.Random) -> Any:
    """An object (sometimes an array) with nested objects, arrays, unicode and every scalar."""
    if rng.random() < 0.15:
        return [_json_scalar(rng) for _ in range(rng.randint(0, 4))]
    return _json_object(rng, 0)


def _json_object(rng: random.Random, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in rng.sample(_JSON_KEYS, rng.randint(0 if depth else 1, 4)):
        roll = rng.random()
        if roll < 0.2 and depth < 2:
            out[key] = _json_object(rng, depth + 1)
        elif roll < 0.4:
            out[key] = [_json_scalar(rng) for _ in range(rng.randint(0, 3))]
        else:
            out[key] = _json_scalar(rng)
    return out


def _json_scalar(rng: random.Random) -> Any:
    # Floats exact in binary, so text and jsonb's numeric agree.
    return rng.choice(
        [
            rng.choice(_JSON_STRINGS),
            rng.randint(-1000, 1000),
            rng.choice([0.5, -1.25, 3.75]),
            True,
            False,
            None,
        ]
    )


def _bytes(rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.1:
        return b""
    if roll < 0.2:
        return bytes(range(256))
    if roll < 0.25:
        return b"\x00" * 8
    return rng.randbytes(rng.randint(1, 64))


# ---------- reading and markers
def truth(conn: Any, kind: Kind) -> dict[str, list[Row]]:
    """Every table's rows as the database holds them (`SELECT *`, columns in table order),
    sorted by key (audit_events by `event`), values as the driver returns them (module doc)."""
    out: dict[str, list[Row]] = {}
    if kind == "mariadb":
        with conn.cursor() as cursor:
            # TIMESTAMP is read in the session's zone: UTC, so the naive values are UTC.
            cursor.execute("SET time_zone = '+00:00'")
            for table in tables(kind):
                cursor.execute(f"SELECT * FROM {table} ORDER BY {_order(kind, table)}")
                names = [d[0] for d in cursor.description]
                out[table] = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        return out
    conn.execute("SET TimeZone = 'UTC'")
    for table in tables(kind):
        cursor = conn.execute(f"SELECT * FROM {table} ORDER BY {_order(kind, table)}")
        names = [d.name for d in cursor.description]
        out[table] = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    return out


def _order(kind: Kind, table: str) -> str:
    return ", ".join(keys(kind, table) or ["event"])


def write_marker(conn: Any, token: str) -> None:
    """Insert or update the one row of `marker` (id 1) with `token`, committed: once a reader
    sees that token, the stream has passed everything committed before it."""
    sql = "INSERT INTO marker (id, token) VALUES (1, %s) "
    if kind_of(conn) == "mariadb":
        with conn.cursor() as cursor:
            cursor.execute(sql + "ON DUPLICATE KEY UPDATE token = VALUES(token)", (token,))
    else:
        conn.execute(sql + "ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token", (token,))
