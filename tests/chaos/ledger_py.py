"""The chaos harness's reader for a ledger only the Python and JavaScript hosts open (DynamoDB):
what ``oncely ledger list --json`` and ``oncely ledger sweep --json`` print for the others.

Long-lived, so that the harness's polls cost a request and not a process start: one JSON command
a line on stdin, one JSON answer a line on stdout.

    {"op": "list", "db": "dynamodb://…", "scope": "S"}  ->  [{"key", "state", "result"}, …]
    {"op": "sweep", "db": "dynamodb://…", "scope": "S"} ->  the sweep's report

``list`` reads the items themselves (a consistent ``Query`` of the scope's partition projecting
the three attributes the checks need; the store's ``list`` reads every attribute, which moto
takes seconds per thousand items to serve); ``sweep`` is the package's (no reconciler
registered, as the CLI has none).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

import boto3  # type: ignore[import-untyped, import-not-found, unused-ignore]
import oncely
from oncely.store.dynamodb import parse_location


def items(db: str, scope: str) -> list[dict[str, Any]]:
    table, region, endpoint = parse_location(db)
    client = boto3.client("dynamodb", region_name=region, endpoint_url=endpoint)
    kwargs: dict[str, Any] = {
        "TableName": table,
        "ConsistentRead": True,
        "KeyConditionExpression": "#s = :s",
        "ProjectionExpression": "#k, #st, #r",
        "ExpressionAttributeNames": {
            "#s": "scope",
            "#k": "key",
            "#st": "state",
            "#r": "result_json",
        },
        "ExpressionAttributeValues": {":s": {"S": scope}},
    }
    rows = []
    while True:
        try:
            page = client.query(**kwargs)
        except client.exceptions.ResourceNotFoundException:
            return rows  # no worker has opened the ledger yet (the first opens and makes it)
        for i in page["Items"]:
            result = i.get("result_json", {}).get("S")
            rows.append(
                {
                    "key": i["key"]["S"],
                    "state": i["state"]["S"],
                    "result": None if result is None else json.loads(result),
                }
            )
        if "LastEvaluatedKey" not in page:
            return rows
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def main() -> None:
    ledgers: dict[str, oncely.Ledger] = {}
    for line in sys.stdin:
        cmd = json.loads(line)
        answer: Any
        if cmd["op"] == "list":
            answer = items(cmd["db"], cmd["scope"])
        else:
            if cmd["db"] not in ledgers:
                ledgers[cmd["db"]] = oncely.Ledger.open(cmd["db"])
            answer = dataclasses.asdict(ledgers[cmd["db"]].sweep(cmd["scope"]))
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
