"""The simulated source database of the incremental tests (pipeline/test_incremental.py says
what the stream holds): `SourceDatabase` keeps its tables as the database holds them after each
change and every message it sent, `simulate` makes its changes, `deliveries` cuts the messages
into batches as Kafka may deliver them, and `write_batch` writes a batch's files to land."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Message:
    """One message of the stream: its format, its text, and its place in the source's order."""

    fmt: str
    value: str
    key: str | None = None
    topic: str | None = None
    first_half_of: int | None = None  # an update's first message: the id of its pair
    second_half_of: int | None = None


@dataclass
class SourceDatabase:
    """The two source tables as the database holds them, and every message they sent."""

    rng: random.Random
    items: dict[int, dict[str, Any]] = field(default_factory=dict)
    items_seen: set[int] = field(default_factory=set)
    docs: dict[str, dict[str, Any]] = field(default_factory=dict)
    docs_seen: set[str] = field(default_factory=set)
    prices: dict[int, dict[str, Any]] = field(default_factory=dict)
    prices_seen: set[int] = field(default_factory=set)
    messages: list[Message] = field(default_factory=list)
    position: int = 1000
    next_item: int = 1
    next_doc: int = 1
    next_price: int = 1

    # ---------- Debezium (MySQL)
    def _item_event(self, op: str, before: dict | None, after: dict | None) -> None:
        self.position += 10
        envelope = {
            "before": before,
            "after": after,
            "source": {
                "version": "2.5.0.Final",
                "connector": "mysql",
                "name": "gen",
                "ts_ms": 0 if op == "r" else 1_700_000_000_000 + self.position,
                "snapshot": "true" if op == "r" else "false",
                "db": "shop",
                "table": "items",
                "file": "mysql-bin.000003",
                "pos": self.position,
                "row": 0,
            },
            "op": op,
            "ts_ms": 1_700_000_000_005 + self.position,
        }
        row = after or before
        key = json.dumps({"id": row["id"]}) if row else None
        self.messages.append(
            Message("debezium_json", json.dumps(envelope), key=key, topic="gen.shop.items")
        )

    def snapshot_item(self) -> None:
        item_id = self.next_item
        self.next_item += 1
        row = {"id": item_id, "name": f"item-{item_id}", "qty": self.rng.randint(0, 9)}
        self.items[item_id] = row
        self.items_seen.add(item_id)
        self._item_event("r", None, row)

    def insert_item(self) -> None:
        if self.rng.random() < 0.2 and self.items_seen - set(self.items):
            item_id = self.rng.choice(sorted(self.items_seen - set(self.items)))  # revive
        else:
            item_id = self.next_item
            self.next_item += 1
        row = {"id": item_id, "name": f"item-{item_id}", "qty": self.rng.randint(0, 9)}
        self.items[item_id] = row
        self.items_seen.add(item_id)
        self._item_event("c", None, row)

    def update_item(self) -> None:
        item_id = self.rng.choice(sorted(self.items))
        before = self.items[item_id]
        after = {**before, "qty": self.rng.randint(0, 99), "name": f"n{self.rng.randint(0, 999)}"}
        self.items[item_id] = after
        self._item_event("u", before, after)

    def delete_item(self) -> None:
        item_id = self.rng.choice(sorted(self.items))
        self._item_event("d", self.items.pop(item_id), None)

    def change_item_key(self) -> None:
        """Debezium sends a primary-key change as a delete of the old key, a create of the new."""
        old_id = self.rng.choice(sorted(self.items))
        row = self.items.pop(old_id)
        self._item_event("d", row, None)
        new_id = self.next_item
        self.next_item += 1
        self.items[new_id] = {**row, "id": new_id}
        self.items_seen.add(new_id)
        self._item_event("c", None, self.items[new_id])

    def truncate_items(self) -> None:
        self.items.clear()
        self._item_event("t", None, None)

    # ---------- Huawei DRS (MongoDB)
    def _doc_event(self, op: str, record_type: str, value: str, where: str | None) -> None:
        self.position += 10
        seconds = 1_700_000_000 + self.position // 100
        message = {
            "id": self.position,
            "op": op,
            "dbType": "MongoDB",
            "db": "gen",
            "coll": "docs",
            "value": value,
            "where": where,
            "recordType": record_type,
            "extra": record_type,
            "es": seconds * 1000,
            "ts": seconds * 1000 + 120,
            "clusterTime": f"{seconds}:{self.position % 100 + 1}",
        }
        self.messages.append(Message("drs_mongo", json.dumps(message)))

    def insert_doc(self) -> None:
        doc_id = f"doc-{self.next_doc}"
        self.next_doc += 1
        doc = {"_id": doc_id, "a": f"a{self.rng.randint(0, 99)}", "b": "b0"}
        self.docs[doc_id] = doc
        self.docs_seen.add(doc_id)
        self._doc_event("INSERT", "insert", json.dumps(doc), None)

    def set_doc(self) -> None:
        doc_id = self.rng.choice(sorted(self.docs))
        doc = self.docs[doc_id]
        field_name = self.rng.choice(["a", "b", "c"])
        value = f"{field_name}{self.rng.randint(0, 999)}"
        update: dict[str, Any] = {"$set": {field_name: value}}
        doc[field_name] = value
        removable = [name for name in doc if name not in ("_id", field_name)]
        if removable and self.rng.random() < 0.3:
            gone = self.rng.choice(sorted(removable))
            update["$unset"] = {gone: ""}
            del doc[gone]
        self._doc_event("UPDATE", "update", json.dumps(update), json.dumps({"_id": doc_id}))

    def replace_doc(self) -> None:
        doc_id = self.rng.choice(sorted(self.docs))
        doc = {"_id": doc_id, "r": f"r{self.rng.randint(0, 99)}"}
        self.docs[doc_id] = doc
        self._doc_event("UPDATE", "replace", json.dumps(doc), json.dumps({"_id": doc_id}))

    def delete_doc(self) -> None:
        doc_id = self.rng.choice(sorted(self.docs))
        del self.docs[doc_id]
        self._doc_event("DELETE", "doc", json.dumps({"_id": doc_id}), None)

    # ---------- DataWorks (MySQL), updates as two messages
    def _price_message(
        self, op: str, before: dict | None, after: dict | None, sequence: int
    ) -> dict[str, Any]:
        return {
            "schema": {
                "dataColumn": [{"name": "id", "type": "LONG"}, {"name": "cents", "type": "LONG"}],
                "primaryKey": ["id"],
                "source": {"dbType": "MySQL", "dbName": "shop", "tableName": "prices"},
            },
            "payload": {
                "before": {"dataColumn": before} if before else None,
                "after": {"dataColumn": after} if after else None,
                "sequenceId": str(sequence),
                "op": op,
                "timestamp": {
                    "eventTime": 1_700_000_000_000 + sequence,
                    "systemTime": 1_700_000_000_005 + sequence,
                    "checkpointTime": 1_700_000_000_000 + sequence,
                },
                "ddl": None,
            },
            "version": "0.0.1",
        }

    def _price_event(self, op: str, before: dict | None, after: dict | None) -> None:
        self.position += 10
        if op != "UPDATE":
            message = self._price_message(op, before, after, self.position)
            self.messages.append(Message("dataworks_json", json.dumps(message)))
            return
        halves = [
            self._price_message("UPDATE_BEFOR", before, None, self.position),
            self._price_message("UPDATE_AFTER", None, after, self.position),
        ]
        self.messages.append(
            Message("dataworks_json", json.dumps(halves[0]), first_half_of=self.position)
        )
        self.messages.append(
            Message("dataworks_json", json.dumps(halves[1]), second_half_of=self.position)
        )

    def insert_price(self) -> None:
        price_id = self.next_price
        self.next_price += 1
        self.prices[price_id] = {"id": price_id, "cents": self.rng.randint(1, 9999)}
        self.prices_seen.add(price_id)
        self._price_event("INSERT", None, self.prices[price_id])

    def update_price(self) -> None:
        price_id = self.rng.choice(sorted(self.prices))
        before = self.prices.pop(price_id)
        after = {**before, "cents": self.rng.randint(1, 9999)}
        if self.rng.random() < 0.2:  # the key changes
            after["id"] = self.next_price
            self.next_price += 1
        self.prices[after["id"]] = after
        self.prices_seen.add(after["id"])
        self._price_event("UPDATE", before, after)

    def delete_price(self) -> None:
        price_id = self.rng.choice(sorted(self.prices))
        self._price_event("DELETE", self.prices.pop(price_id), None)


def simulate(rng: random.Random) -> SourceDatabase:
    """Snapshot rows, then ~2,500 changes in the source's commit order."""
    source = SourceDatabase(rng)
    for _ in range(200):
        source.snapshot_item()
    for step in range(2500):
        if step in (900, 1900):
            source.truncate_items()
            continue
        roll = rng.random()
        if roll < 0.15:
            if len(source.prices) < 5 or rng.random() < 0.2:
                source.insert_price()
            else:
                rng.choice([source.update_price] * 4 + [source.delete_price])()
        elif roll < 0.6:
            if rng.random() < 0.6:
                if len(source.items) < 5 or rng.random() < 0.3:
                    source.insert_item()
                else:
                    item_changes = [source.update_item] * 6 + [source.delete_item] * 2
                    rng.choice([*item_changes, source.change_item_key])()
            else:
                if len(source.docs) < 5 or rng.random() < 0.25:
                    source.insert_doc()
                else:
                    rng.choice([source.set_doc] * 6 + [source.replace_doc, source.delete_doc])()
        elif source.items:
            source.update_item()
        else:
            source.insert_item()
    return source


def deliveries(messages: list[Message], rng: random.Random, batches: int) -> list[list[Message]]:
    """The messages in `batches` batches, each out of order locally and across batch
    boundaries, and about 5% of them delivered a second time in a later position."""
    jittered = sorted(
        range(len(messages)), key=lambda index: index + rng.gauss(0, 40) + rng.random()
    )
    delivered = [messages[index] for index in jittered]
    # The halves of an update share a Kafka partition: the first half comes first.
    places: dict[int, list[int]] = {}
    for place, message in enumerate(delivered):
        pair = message.first_half_of or message.second_half_of
        if pair is not None:
            places.setdefault(pair, []).append(place)
    for first, second in places.values():
        if delivered[first].second_half_of is not None:
            delivered[first], delivered[second] = delivered[second], delivered[first]
    for index in rng.sample(range(len(messages)), len(messages) // 20):
        later = rng.randint(index, len(delivered))
        delivered.insert(later, messages[index])
    size = -(-len(delivered) // batches)
    return [delivered[start : start + size] for start in range(0, len(delivered), size)]


def write_batch(batch: list[Message], folder: Path, offsets: dict[str, int]) -> dict[str, Path]:
    """One file per format; Debezium messages in kcat -J envelopes with their Kafka keys."""
    folder.mkdir(parents=True)
    lines: dict[str, list[str]] = {}
    for message in batch:
        if message.fmt == "debezium_json":
            offsets[message.fmt] = offsets.get(message.fmt, 0) + 1
            line = json.dumps(
                {
                    "topic": message.topic,
                    "partition": 0,
                    "offset": offsets[message.fmt],
                    "key": message.key,
                    "payload": message.value,
                }
            )
        else:
            line = message.value
        lines.setdefault(message.fmt, []).append(line)
    files = {}
    for fmt, fmt_lines in lines.items():
        files[fmt] = folder / f"{fmt}.jsonl"
        files[fmt].write_text("\n".join(fmt_lines) + "\n")
    return files
