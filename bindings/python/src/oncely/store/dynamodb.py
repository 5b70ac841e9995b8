"""DynamoDB backend (boto3): a ledger in one DynamoDB table, shared by many workers (Python and
JavaScript alike: ``bindings/js/src/stores/dynamodb.js`` reads and writes the same items).

Opened by a location ``dynamodb://TABLE?region=REGION&endpoint=URL`` (``region`` and
``endpoint`` are optional: boto3's defaults apply, credentials always come from boto3's usual
chain). The table is created at open when it does not exist (on-demand billing), and checked
when it does: another key schema or missing indexes fail the open with
:class:`~oncely.MigrationError`.

The layout (docs/operations.md, "A ledger in DynamoDB"):

- one item per entry, its partition key the ``scope`` and its sort key the ``key`` (both
  strings), so a scope's entries sit together;
- its attributes the SQL schema's column names with the same values: text columns as ``S``,
  numbers as ``N``; a NULL column is absent;
- ``history``: a list of the entry's history records, each the SQL stores' ``[version, at,
  state, attempt, owner, reconcile_attempts, reason, resolved_by, settlement]`` (a null one
  ``NULL``), appended by the write that keeps one;
- ``due_shard``: ``"0"`` to ``"7"``, the sum of the key's UTF-8 bytes modulo 8 (the partition of
  the all-scopes due index, so that no one index partition takes every write);
- two sparse indexes (keys only; an item without ``due_at`` is in neither): ``scope_due``
  (``scope``, ``due_at``) for one scope's due rows and ``due`` (``due_shard``, ``due_at``) for
  every scope's.

A claim is one ``PutItem`` conditioned on ``attribute_not_exists(scope)``; every later write
one ``UpdateItem`` (``SET`` the columns, ``REMOVE`` the null ones, ``list_append`` the history
record when the core marks the write) or ``DeleteItem`` conditioned on ``version = :expected``.
A refused condition (``ConditionalCheckFailedException``) is the compare-and-set's ``False``;
every other error is :class:`~oncely.StorageError`.

Every read of an item is strongly consistent (``ConsistentRead``): ``get``, ``recorded`` and
``history`` are one ``GetItem``, ``list`` one ``Query`` of the scope's partition (read whole,
sorted here: the inspection API, not the hot path). Indexes are only eventually consistent, so
``due`` takes the keys from an index and reads the items again (``BatchGetItem``,
``ConsistentRead``), keeping those still due: a row that became due a moment ago may wait for
the next sweep, a stale one is never returned.
"""

from __future__ import annotations

import builtins
import re
import time
import urllib.parse
from decimal import Decimal
from typing import Any

from oncely.errors import MigrationError, StorageError
from oncely.store import HistoryRecord, ListFilter, Recorded
from oncely.store._sql import COLUMNS, _i, from_row, history_from_row, record_of, to_row
from oncely.types import Entry

# boto3 and botocore ship no type information (and the lint environment does not install them).
try:
    import boto3  # type: ignore[import-untyped, import-not-found, unused-ignore]
    import botocore.config  # type: ignore[import-untyped, import-not-found, unused-ignore]
    import botocore.exceptions  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from boto3.dynamodb.types import (  # type: ignore[import-untyped, import-not-found, unused-ignore]
        TypeDeserializer,
        TypeSerializer,
    )
except ImportError:  # pragma: no cover - optional dependency
    boto3 = None

SHARDS = 8
"""Partitions of the all-scopes due index (``due_shard``)."""
DUE_BY_SCOPE = "scope_due"
DUE_ALL = "due"
_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")
_NUMBERS = frozenset(
    ("version", "attempt", "created_at", "updated_at", "lease_until", "in_doubt_since",
     "next_reconcile_at", "reconcile_attempts", "lease_ms", "max_call_ms", "reconcile_after_ms",
     "escalate_after_ms", "retention_ms", "due_at")
)  # fmt: skip
# Every column by a placeholder name (`key`, `state`, `owner`… are DynamoDB reserved words).
_NAMES = {f"#c{i}": c for i, c in enumerate(COLUMNS)}
_NAME = {c: n for n, c in _NAMES.items()}
_PROJECTION = ", ".join(_NAMES)
_RECORDED = ("state", "fingerprint", "tool", "result_json")


def due_shard(key: str) -> str:
    """The item's partition of the all-scopes due index: the sum of ``key``'s UTF-8 bytes modulo
    :data:`SHARDS`, as a decimal string."""
    return str(sum(key.encode()) % SHARDS)


def parse_location(location: str) -> tuple[str, str | None, str | None]:
    """``(table, region, endpoint)`` of ``dynamodb://TABLE?region=…&endpoint=…``;
    :class:`ValueError` saying what is wrong otherwise."""
    parts = urllib.parse.urlsplit(location)
    if parts.scheme != "dynamodb":
        raise ValueError(f"not a DynamoDB location (dynamodb://TABLE?region=…): {location!r}")
    table = parts.netloc
    if not _TABLE_NAME.fullmatch(table) or parts.path not in ("", "/"):
        raise ValueError(
            f"the DynamoDB table in {location!r} must be 3 to 255 of A-Z a-z 0-9 _ . - "
            "(dynamodb://TABLE?region=…)"
        )
    query = urllib.parse.parse_qs(parts.query, keep_blank_values=True, strict_parsing=False)
    unknown = sorted(set(query) - {"region", "endpoint"})
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} in {location!r}: only region, endpoint")
    for k, v in query.items():
        if len(v) != 1 or not v[0]:
            raise ValueError(f"option {k} in {location!r} must be given once, not empty")
    return table, query.get("region", [None])[0], query.get("endpoint", [None])[0]


def _wrap(e: Exception) -> StorageError:
    err = StorageError(f"storage: {e}")
    err.__cause__ = e
    return err


def _code(e: Exception) -> str:
    if isinstance(e, botocore.exceptions.ClientError):
        return str(e.response.get("Error", {}).get("Code", ""))
    return ""


class DynamoDBStore:
    """A ledger in a DynamoDB table (created at open if absent)."""

    def __init__(self, location: str, *, connect_timeout: float = 5, read_timeout: float = 10):
        if boto3 is None:
            raise ImportError("oncely's DynamoDB store needs boto3: pip install 'oncely[dynamodb]'")
        self.location = location
        self.table, region, endpoint = parse_location(location)
        config = botocore.config.Config(
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            retries={"mode": "standard"},
        )
        try:
            self._db = boto3.client(
                "dynamodb", region_name=region, endpoint_url=endpoint, config=config
            )
        except botocore.exceptions.NoRegionError as e:
            raise ValueError(
                f"no AWS region for {location!r}: add ?region=… or set AWS_DEFAULT_REGION"
            ) from e
        self._ser = TypeSerializer()
        self._de = TypeDeserializer()
        self._ensure_table()

    def __repr__(self) -> str:
        return f"DynamoDBStore({self.location!r})"

    # --- the table --------------------------------------------------------------------------

    def _ensure_table(self) -> None:
        try:
            try:
                desc = self._db.describe_table(TableName=self.table)["Table"]
            except botocore.exceptions.ClientError as e:
                if _code(e) != "ResourceNotFoundException":
                    raise
                self._create_table()
                desc = self._db.describe_table(TableName=self.table)["Table"]
            deadline = time.monotonic() + 120
            while not _active(desc):
                if time.monotonic() > deadline:
                    raise MigrationError(f"the DynamoDB table {self.table} did not become active")
                time.sleep(0.2)
                desc = self._db.describe_table(TableName=self.table)["Table"]
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as e:
            raise MigrationError(f"opening the DynamoDB table {self.table}: {e}") from e
        wrong = _layout_differs(desc)
        if wrong:
            raise MigrationError(f"the DynamoDB table {self.table} is not a ledger's: {wrong}")

    def _create_table(self) -> None:
        index = [
            (DUE_BY_SCOPE, "scope"),
            (DUE_ALL, "due_shard"),
        ]
        try:
            self._db.create_table(
                TableName=self.table,
                BillingMode="PAY_PER_REQUEST",
                AttributeDefinitions=[
                    {"AttributeName": "scope", "AttributeType": "S"},
                    {"AttributeName": "key", "AttributeType": "S"},
                    {"AttributeName": "due_shard", "AttributeType": "S"},
                    {"AttributeName": "due_at", "AttributeType": "N"},
                ],
                KeySchema=[
                    {"AttributeName": "scope", "KeyType": "HASH"},
                    {"AttributeName": "key", "KeyType": "RANGE"},
                ],
                GlobalSecondaryIndexes=[
                    {
                        "IndexName": name,
                        "KeySchema": [
                            {"AttributeName": hash_key, "KeyType": "HASH"},
                            {"AttributeName": "due_at", "KeyType": "RANGE"},
                        ],
                        "Projection": {"ProjectionType": "KEYS_ONLY"},
                    }
                    for name, hash_key in index
                ],
            )
        except botocore.exceptions.ClientError as e:
            if _code(e) != "ResourceInUseException":  # another worker is creating it
                raise

    # --- conversions ------------------------------------------------------------------------

    def _item(self, row: tuple[Any, ...]) -> dict[str, Any]:
        return {
            c: self._ser.serialize(v) for c, v in zip(COLUMNS, row, strict=True) if v is not None
        }

    def _record(self, row: tuple[Any, ...]) -> dict[str, Any]:
        av: dict[str, Any] = self._ser.serialize(list(record_of(row)))
        return av

    def _value(self, av: dict[str, Any]) -> Any:
        v = self._de.deserialize(av)
        return _plain(v)

    def _row(self, item: dict[str, Any]) -> tuple[Any, ...]:
        row = []
        for c in COLUMNS:
            av = item.get(c)
            v = None if av is None else self._value(av)
            if v is not None and (c in _NUMBERS) != isinstance(v, int):
                raise StorageError(f"corrupt ledger row ({c} of {item.get('scope')!r})")
            row.append(v)
        return tuple(row)

    def _key(self, scope: str, key: str) -> dict[str, Any]:
        return {"scope": {"S": scope}, "key": {"S": key}}

    # --- calls ------------------------------------------------------------------------------

    def _call(self, op: str, **kwargs: Any) -> Any:
        """Call ``op``; ``None`` when its condition was refused."""
        try:
            return getattr(self._db, op)(TableName=self.table, **kwargs)
        except botocore.exceptions.ClientError as e:
            if _code(e) == "ConditionalCheckFailedException":
                return None
            raise _wrap(e) from e
        except botocore.exceptions.BotoCoreError as e:
            raise _wrap(e) from e

    def _read(self, scope: str, key: str, names: dict[str, str]) -> dict[str, Any] | None:
        r = self._call(
            "get_item",
            Key=self._key(scope, key),
            ConsistentRead=True,
            ProjectionExpression=", ".join(names),
            ExpressionAttributeNames=names,
        )
        item = r.get("Item")
        return item or None

    # --- the Store protocol -----------------------------------------------------------------

    def get(self, scope: str, key: str) -> Entry | None:
        item = self._read(scope, key, _NAMES)
        return from_row(self._row(item)) if item else None

    def recorded(self, scope: str, key: str) -> Recorded | None:
        """What a replay compares of the row (:class:`~oncely.store.Recorded`), if any."""
        item = self._read(scope, key, {_NAME[c]: c for c in _RECORDED})
        if not item:
            return None
        try:
            result = item["result_json"]["S"] if "result_json" in item else None
            return Recorded(item["state"]["S"], item["fingerprint"]["S"], item["tool"]["S"], result)
        except KeyError as e:
            raise StorageError(f"corrupt ledger row ({e} of ({scope}, {key}))") from e

    def insert(self, entry: Entry) -> bool:
        row = to_row(entry)
        item = self._item(row)
        item["history"] = {"L": [self._record(row)]}
        item["due_shard"] = {"S": due_shard(entry.key)}
        r = self._call(
            "put_item",
            Item=item,
            ConditionExpression="attribute_not_exists(#s)",
            ExpressionAttributeNames={"#s": "scope"},
        )
        return r is not None

    def update(self, expected_version: int, entry: Entry, *, history: bool = False) -> bool:
        row = to_row(entry)
        names: dict[str, str] = {"#v": "version"}
        values: dict[str, Any] = {":expected": {"N": str(_i(expected_version))}}
        sets, removes = [], []
        for c, v in zip(COLUMNS, row, strict=True):
            if c in ("scope", "key"):
                continue
            n = _NAME[c]
            names[n] = c
            if v is None:
                removes.append(n)
            else:
                values[f":{n[1:]}"] = self._ser.serialize(v)
                sets.append(f"{n} = :{n[1:]}")
        if history:
            names["#h"] = "history"
            values[":rec"] = {"L": [self._record(row)]}
            values[":none"] = {"L": []}
            sets.append("#h = list_append(if_not_exists(#h, :none), :rec)")
        expr = "SET " + ", ".join(sets)
        if removes:
            expr += " REMOVE " + ", ".join(removes)
        r = self._call(
            "update_item",
            Key=self._key(entry.scope, entry.key),
            UpdateExpression=expr,
            ConditionExpression="#v = :expected",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )
        return r is not None

    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        r = self._call(
            "delete_item",
            Key=self._key(scope, key),
            ConditionExpression="#v = :expected",
            ExpressionAttributeNames={"#v": "version"},
            ExpressionAttributeValues={":expected": {"N": str(_i(expected_version))}},
        )
        return r is not None

    def list(self, scope: str, filter: ListFilter) -> builtins.list[Entry]:
        names = {**_NAMES, "#s": "scope"}
        values: dict[str, Any] = {":scope": {"S": scope}}
        cond = []
        if filter.state is not None:
            cond.append(f"{_NAME['state']} = :state")
            values[":state"] = {"S": filter.state.value}
        if filter.tool is not None:
            cond.append(f"{_NAME['tool']} = :tool")
            values[":tool"] = {"S": filter.tool}
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "#s = :scope",
            "ConsistentRead": True,
            "ProjectionExpression": _PROJECTION,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
        if cond:
            kwargs["FilterExpression"] = " AND ".join(cond)
        entries = [from_row(self._row(i)) for i in self._query(kwargs)]
        entries.sort(key=lambda e: (-e.updated_at, e.key))
        return entries[: filter.limit]

    def due(self, scope: str | None, now: int, limit: int) -> builtins.list[Entry]:
        if limit <= 0:
            return []
        parts = (
            [(DUE_BY_SCOPE, "scope", scope)]
            if scope is not None
            else [(DUE_ALL, "due_shard", str(s)) for s in range(SHARDS)]
        )
        keys: dict[tuple[str, str], None] = {}
        for index, attr, value in parts:
            kwargs = {
                "IndexName": index,
                "KeyConditionExpression": "#p = :p AND #d <= :now",
                "ExpressionAttributeNames": {"#p": attr, "#d": "due_at"},
                "ExpressionAttributeValues": {":p": {"S": value}, ":now": {"N": str(_i(now))}},
                "Limit": limit,
            }
            for item in self._query(kwargs, at_most=limit):
                keys[(item["scope"]["S"], item["key"]["S"])] = None
        entries = [
            e for e in self._get_many(builtins.list(keys))
            if e.due_at is not None and e.due_at <= now
        ]  # fmt: skip
        entries.sort(key=lambda e: (e.due_at or 0, e.scope, e.key))
        return entries[:limit]

    def history(self, scope: str, key: str) -> builtins.list[HistoryRecord]:
        item = self._read(scope, key, {"#h": "history"})
        if not item or "history" not in item:
            return []
        records = self._value(item["history"])
        if not isinstance(records, builtins.list):
            raise StorageError(f"corrupt ledger row (history of ({scope}, {key}))")
        out = [history_from_row(scope, key, r) for r in records]
        out.sort(key=lambda h: h.version)
        return out

    def close(self) -> None:
        self._db.close()

    # --- paging -----------------------------------------------------------------------------

    def _query(self, kwargs: dict[str, Any], at_most: int | None = None) -> builtins.list[Any]:
        items: builtins.list[Any] = []
        while True:
            r = self._call("query", **kwargs)
            items.extend(r.get("Items", []))
            last = r.get("LastEvaluatedKey")
            if not last or (at_most is not None and len(items) >= at_most):
                return items
            kwargs = {**kwargs, "ExclusiveStartKey": last}

    def _get_many(self, keys: builtins.list[tuple[str, str]]) -> builtins.list[Entry]:
        """The items of ``keys`` that exist, read strongly consistently (``BatchGetItem``, at
        most 100 keys a call; unprocessed keys are asked again)."""
        out: builtins.list[Entry] = []
        for i in range(0, len(keys), 100):
            want: builtins.list[dict[str, Any]] = [self._key(s, k) for s, k in keys[i : i + 100]]
            pause = 0.01
            while want:
                request = {
                    self.table: {
                        "Keys": want,
                        "ConsistentRead": True,
                        "ProjectionExpression": _PROJECTION,
                        "ExpressionAttributeNames": _NAMES,
                    }
                }
                try:
                    r = self._db.batch_get_item(RequestItems=request)
                except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as e:
                    raise _wrap(e) from e
                out.extend(from_row(self._row(it)) for it in r["Responses"].get(self.table, []))
                want = r.get("UnprocessedKeys", {}).get(self.table, {}).get("Keys", [])
                if want:
                    time.sleep(pause)
                    pause = min(pause * 2, 1.0)
        return out


def _plain(v: Any) -> Any:
    """A deserialized attribute with its numbers as ``int`` (boto3 gives ``Decimal``)."""
    if isinstance(v, Decimal):
        if v != v.to_integral_value():
            raise StorageError(f"corrupt ledger row (a number that is not an integer: {v})")
        return int(v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _active(desc: dict[str, Any]) -> bool:
    return desc.get("TableStatus") == "ACTIVE" and all(
        g.get("IndexStatus", "ACTIVE") == "ACTIVE" for g in desc.get("GlobalSecondaryIndexes", [])
    )


def _keys(schema: builtins.list[dict[str, str]]) -> builtins.list[tuple[str, str]]:
    return [(k["AttributeName"], k["KeyType"]) for k in schema]


def _layout_differs(desc: dict[str, Any]) -> str | None:
    """What differs from a ledger's table, if anything."""
    if _keys(desc.get("KeySchema", [])) != [("scope", "HASH"), ("key", "RANGE")]:
        return "its key must be scope (partition) and key (sort)"
    indexes = {
        g["IndexName"]: _keys(g["KeySchema"]) for g in desc.get("GlobalSecondaryIndexes", [])
    }
    for name, hash_key in ((DUE_BY_SCOPE, "scope"), (DUE_ALL, "due_shard")):
        if indexes.get(name) != [(hash_key, "HASH"), ("due_at", "RANGE")]:
            return f"it needs the index {name} ({hash_key}, due_at)"
    return None
