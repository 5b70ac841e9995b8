#!/usr/bin/env python3
"""A server of protocol 2026-07-28 with the tasks extension (`io.modelcontextprotocol/tasks`,
SEP-2663), written on raw JSON-RPC lines over stdio: neither the Python SDK (2.3) nor the
TypeScript SDK's reference server (`server-everything`, 2025-11-25 tasks) serves that extension.

    python tasks_server.py --effects FILE

One tool, `export(report)`: irreversible (every call that reaches it is a real export, one JSON
line appended to FILE), listed with `execution: {"taskSupport": "optional"}` and its oncely
policy. A call whose request declares the tasks extension in its client capabilities is answered
with a task handle (`resultType: "task"`); `tasks/get` then answers the task completed, with its
result. A call without it runs at once. `tasks/cancel` and `tasks/update` are acknowledged.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from typing import Any

VERSION = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "tasks-server", "version": "1.0.0"}}
POLICY = {"class": "irreversible-external", "key": {}, "reconcile": "manual"}
TOOL = {
    "name": "export",
    "description": "Export a report: slow, so it runs as a task when the client takes tasks.",
    "inputSchema": {
        "type": "object",
        "properties": {"report": {"type": "string"}},
        "required": ["report"],
    },
    "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
    "execution": {"taskSupport": "optional"},
    "_meta": {"oncely/policy": POLICY},
}


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Server:
    def __init__(self, effects: str) -> None:
        self.effects = effects
        self.tasks: dict[str, dict[str, Any]] = {}

    def export(self, args: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
        export_id = f"ex_{uuid.uuid4().hex[:12]}"
        effect = {
            "kind": "export",
            "id": export_id,
            "report": args.get("report"),
            "idempotencyKey": meta.get("idempotencyKey"),
        }
        with open(self.effects, "a", encoding="utf-8") as f:
            f.write(json.dumps(effect) + "\n")
        text = f"exported {args.get('report')}: {export_id}"
        return {
            "resultType": "complete",
            "content": [{"type": "text", "text": text}],
            "structuredContent": {"export": effect},
            "isError": False,
        }

    def task(self, task_id: str, status: str) -> dict[str, Any]:
        t = self.tasks[task_id]
        return {
            "taskId": task_id,
            "status": status,
            "createdAt": t["createdAt"],
            "lastUpdatedAt": now(),
            "ttlMs": 600_000,
            "pollIntervalMs": 50,
        }

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        meta = params.get("_meta") or {}
        if method == "server/discover":
            return {
                "resultType": "complete",
                "supportedVersions": [VERSION],
                "capabilities": {"tools": {}, "extensions": {TASKS: {}}},
                "ttlMs": 0,
                "cacheScope": "private",
            }
        if method == "tools/list":
            return {"resultType": "complete", "tools": [TOOL], "ttlMs": 0, "cacheScope": "private"}
        if method == "tools/call":
            if params.get("name") != "export":
                raise KeyError(params.get("name"))
            result = self.export(params.get("arguments") or {}, meta)
            caps = meta.get("io.modelcontextprotocol/clientCapabilities") or {}
            if TASKS not in (caps.get("extensions") or {}):
                return result
            task_id = f"task_{uuid.uuid4().hex[:12]}"
            self.tasks[task_id] = {"createdAt": now(), "result": result}
            return {"resultType": "task", **self.task(task_id, "working")}
        if method == "tasks/get":
            task_id = params["taskId"]
            return {
                "resultType": "complete",
                **self.task(task_id, "completed"),
                "result": self.tasks[task_id]["result"],
            }
        if method in ("tasks/cancel", "tasks/update"):
            return {"resultType": "complete"}
        raise LookupError(method)

    def serve(self) -> None:
        for line in sys.stdin:
            if not line.strip():
                continue
            msg = json.loads(line)
            if "id" not in msg or "method" not in msg:
                continue  # notifications, responses
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": msg["id"]}
            try:
                result = self.answer(msg["method"], msg.get("params") or {})
                result["_meta"] = {**SERVER_INFO, **(result.get("_meta") or {})}
                reply["result"] = result
            except (KeyError, TypeError) as e:
                reply["error"] = {"code": -32602, "message": f"invalid params: {e}"}
            except LookupError as e:
                reply["error"] = {"code": -32601, "message": f"method not found: {e}"}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--effects", required=True)
    Server(ap.parse_args().effects).serve()


if __name__ == "__main__":
    main()
