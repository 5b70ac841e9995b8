"""The DynamoDB store's own behaviour, beyond the conformance suite (which runs every
``ledger_location`` test on DynamoDB too): its locations, the table it makes and the one it
refuses, the items it writes, and its errors. Against moto's server mode
(``scripts/with-dynamodb``); the JavaScript store writes the same items
(``bindings/js/test/dynamodb.test.mjs``)."""

from __future__ import annotations

import secrets
import urllib.parse
from dataclasses import replace
from typing import Any

import pytest

import oncely
from oncely.store.dynamodb import DynamoDBStore, due_shard, parse_location

POLICY = {"class": "irreversible-external", "key": {}, "reconcile": "provider-idempotent"}


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("dynamodb://ab", "must be 3 to 255"),
        ("dynamodb://bad/name", "must be 3 to 255"),
        ("dynamodb://has space", "must be 3 to 255"),
        ("dynamodb://table?consistent=no", "unknown option"),
        ("dynamodb://table?region=", "must be given once, not empty"),
        ("dynamodb://table?region=a&region=b", "must be given once, not empty"),
        ("redis://table", "not a DynamoDB location"),
    ],
)
def test_a_bad_location_says_what_is_wrong(location: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_location(location)


def test_a_location_names_table_region_and_endpoint() -> None:
    endpoint = urllib.parse.quote("http://127.0.0.1:8000", safe="")
    assert parse_location(f"dynamodb://my.ledger-1?region=eu-west-1&endpoint={endpoint}") == (
        "my.ledger-1",
        "eu-west-1",
        "http://127.0.0.1:8000",
    )
    assert parse_location("dynamodb://ledger") == ("ledger", None, None)


def test_the_due_shard_is_the_keys_byte_sum_modulo_eight() -> None:
    assert due_shard("a") == str(97 % 8)
    assert due_shard("é") == str((0xC3 + 0xA9) % 8)
    assert {due_shard(f"k{i}") for i in range(64)} == {str(i) for i in range(8)}


def _raw(location: str) -> tuple[Any, str]:
    import boto3

    table, _, endpoint = parse_location(location)
    return boto3.client("dynamodb", endpoint_url=endpoint), table


def test_the_open_makes_the_table_and_refuses_one_of_another_layout(
    dynamodb_location: str,
) -> None:
    DynamoDBStore(dynamodb_location).close()
    DynamoDBStore(dynamodb_location).close()  # a second open finds it as it should be
    db, table = _raw(dynamodb_location)
    d = db.describe_table(TableName=table)["Table"]
    keys = [(k["AttributeName"], k["KeyType"]) for k in d["KeySchema"]]
    assert keys == [("scope", "HASH"), ("key", "RANGE")]
    indexes = {
        g["IndexName"]: (
            [(k["AttributeName"], k["KeyType"]) for k in g["KeySchema"]],
            g["Projection"]["ProjectionType"],
        )
        for g in d["GlobalSecondaryIndexes"]
    }
    assert indexes == {
        "scope_due": ([("scope", "HASH"), ("due_at", "RANGE")], "KEYS_ONLY"),
        "due": ([("due_shard", "HASH"), ("due_at", "RANGE")], "KEYS_ONLY"),
    }
    other = f"oncely_py_other_{secrets.token_hex(4)}"
    db.create_table(
        TableName=other,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    )
    try:
        elsewhere = dynamodb_location.replace(table, other)
        with pytest.raises(oncely.MigrationError, match="is not a ledger's: its key must be"):
            oncely.Ledger.open(elsewhere)
    finally:
        db.delete_table(TableName=other)
        db.close()


def test_an_item_is_the_sql_row_with_its_history(dynamodb_location: str) -> None:
    ledger = oncely.Ledger.open(dynamodb_location, owner="w1")
    claim = ledger.prepare(scope="acme", run="r", step="s", tool="charge", args={"a": 1},
                           policy=POLICY)  # fmt: skip
    o = ledger.begin(claim)
    assert isinstance(o, oncely.Execute)
    ledger.complete("acme", claim.key, o.token, '{"id":"ch_1"}')
    db, table = _raw(dynamodb_location)
    try:
        item = db.get_item(
            TableName=table,
            Key={"scope": {"S": "acme"}, "key": {"S": claim.key}},
            ConsistentRead=True,
        )["Item"]
    finally:
        db.close()
    entry = ledger.get("acme", claim.key)
    assert entry is not None
    assert item["state"] == {"S": "done"}
    assert item["version"] == {"N": str(entry.version)}
    assert item["result_json"] == {"S": '{"id":"ch_1"}'}
    assert item["reconcile_kind"] == {"S": "provider-idempotent"}
    assert item["due_shard"] == {"S": due_shard(claim.key)}
    # A NULL column is absent, as the SQL stores' NULL.
    for absent in ("reason", "resolved_by", "settlement", "reconcile_tool", "in_doubt_since"):
        assert absent not in item, absent
    # The history: the SQL stores' records, oldest first, nulls as NULL.
    records = item["history"]["L"]
    assert [r["L"][2] for r in records] == [{"S": "pending"}, {"S": "done"}]
    assert records[0]["L"][0] == {"N": "1"} and records[0]["L"][6] == {"NULL": True}
    assert [h.state for h in ledger.history("acme", claim.key)] == [
        oncely.EntryState.PENDING,
        oncely.EntryState.DONE,
    ]
    ledger.close()


def test_a_write_dynamodb_refuses_is_a_storage_error_and_records_nothing(
    dynamodb_location: str,
) -> None:
    """An item over DynamoDB's 400 KB fails the claim with a StorageError; nothing is recorded.
    (An update over the limit fails too, but moto applies part of it first, which DynamoDB does
    not: docs/operations.md.)"""
    ledger = oncely.Ledger.open(dynamodb_location, owner="w1")
    claim = ledger.prepare(scope="big", run="r", step="s", tool="t", args={"a": 1},
                           policy=POLICY)  # fmt: skip
    o = ledger.begin(claim)
    assert isinstance(o, oncely.Execute)
    entry = ledger.get("big", claim.key)
    assert entry is not None
    huge = replace(entry, key="k-huge", result_json='"' + "x" * 500_000 + '"')
    with pytest.raises(oncely.StorageError, match="size"):
        ledger.store.insert(huge)
    assert ledger.get("big", "k-huge") is None
    ledger.close()


def test_an_unreachable_endpoint_fails_the_open_with_a_typed_error() -> None:
    endpoint = urllib.parse.quote("http://127.0.0.1:9", safe="")
    with pytest.raises(oncely.MigrationError, match="opening the DynamoDB table"):
        DynamoDBStore(f"dynamodb://nowhere?region=us-east-1&endpoint={endpoint}",
                      connect_timeout=1)  # fmt: skip
