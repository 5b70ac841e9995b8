#!/usr/bin/env python3
"""A flaky payments MCP server: the upstream that `oncely mcp` is tested against.

    python payments_server.py --charges FILE [--late-ms N] [--late-times K] [--http PORT]

stdio by default; `--http PORT` serves Streamable HTTP at http://127.0.0.1:PORT/mcp.

Tools:
- `charge(customer, amount_cents, memo="")`: irreversible. Every call that reaches it is a REAL
  charge: one JSON line appended to FILE (flushed and fsynced before the answer), with the
  `_meta.idempotencyKey` and `_meta["oncely/key"]` the request carried, if any. It declares its
  oncely policy in its tool `_meta["oncely/policy"]`.
- `find_charge(customer, amount_cents, idempotencyKey="")`: read-only. `{"found": bool,
  "charge": {...} | null}`: by idempotencyKey when one is given, else by customer and amount.
- `send_email(to, body)`: irreversible, with no lookup tool; also appends to FILE (kind "email").

Flakiness: `--crash-times K` makes the first K effects in FILE end the process right after they
are recorded, before any answer (a crash mid-call); `--fail-times K` makes them answer with an
error (`isError`) after they are recorded, as a server does whose provider timed out. `--late-ms N`
sleeps N ms after an effect is recorded and before answering, so the answer arrives after the
client's timeout; `--late-times K` makes only the first K effects in FILE late. All three count
across processes, so a restarted server does not do it again. The server never deduplicates
anything itself: that is the point.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import time
import uuid
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent, ToolAnnotations

CHARGE_POLICY = {
    "class": "irreversible-external",
    "key": {"ignore": ["/memo"]},
    "reconcile": {"lookup": "find_charge"},
    "leaseMs": 1000,
    "maxCallMs": 2000,
}


def log(msg: str) -> None:
    print(f"payments_server[{os.getpid()}]: {msg}", file=sys.stderr, flush=True)


def read_effects(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def record(path: str, effect: dict[str, Any]) -> int:
    """Append one effect durably; return its 1-based position in the file (across processes)."""
    with open(path, "a+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            f.seek(0)
            n = sum(1 for line in f if line.strip())
            f.seek(0, os.SEEK_END)
            f.write(json.dumps(effect, sort_keys=True) + "\n")
            f.flush()
            os.fsync(f.fileno())
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
    return n + 1


def request_meta(ctx: Context) -> dict[str, Any]:
    meta = ctx.request_context.meta
    return dict(meta) if meta else {}


def build(
    charges: str,
    late_ms: int,
    late_times: int | None,
    crash_times: int = 0,
    fail_times: int = 0,
    approval_over: int | None = None,
) -> MCPServer:
    server = MCPServer("flaky-payments", version="1.0.0", log_level="WARNING")

    async def effect(kind: str, fields: dict[str, Any], ctx: Context) -> dict[str, Any]:
        meta = request_meta(ctx)
        effect = {
            "kind": kind,
            "id": f"{'ch' if kind == 'charge' else 'em'}_{uuid.uuid4().hex[:16]}",
            **fields,
            "idempotencyKey": meta.get("idempotencyKey"),
            "oncelyKey": meta.get("oncely/key"),
            "pid": os.getpid(),
            "at": time.time(),
        }
        n = record(charges, effect)
        log(f"{kind} #{n} {effect['id']} {fields} key={effect['idempotencyKey']}")
        if n <= crash_times:
            log(f"{kind} #{n}: crashing before the answer")
            os._exit(3)
        if n <= fail_times:
            # What a server does when its provider's answer is lost: an error, after the effect.
            log(f"{kind} #{n}: answering with an error")
            raise RuntimeError("the payment provider did not answer in time")
        if late_ms > 0 and (late_times is None or n <= late_times):
            log(f"{kind} #{n}: answering {late_ms} ms late")
            await anyio.sleep(late_ms / 1000)
        return effect

    @server.tool(
        description="Charge a customer. Irreversible: every call moves money.",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=True,
        ),
        meta={
            "oncely/policy": CHARGE_POLICY
            if approval_over is None
            else {**CHARGE_POLICY, "approval": {"when": {"/amount_cents": {">": approval_over}}}}
        },
    )
    async def charge(
        customer: str, amount_cents: int, ctx: Context, memo: str = ""
    ) -> CallToolResult:
        c = await effect(
            "charge", {"customer": customer, "amount_cents": amount_cents, "memo": memo}, ctx
        )
        public = {k: c[k] for k in ("id", "customer", "amount_cents", "memo", "idempotencyKey")}
        return CallToolResult(
            content=[
                TextContent(type="text", text=f"charged {customer} {amount_cents} cents: {c['id']}")
            ],
            structured_content={"charge": public},
        )

    @server.tool(
        description="Find a charge by its idempotency key, or by customer and amount when no key "
        "is given.",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True),
    )
    def find_charge(customer: str, amount_cents: int, idempotencyKey: str = "") -> CallToolResult:
        found = None
        for c in read_effects(charges):
            if c.get("kind") != "charge":
                continue
            if idempotencyKey:
                match = c.get("idempotencyKey") == idempotencyKey
            else:
                match = c.get("customer") == customer and c.get("amount_cents") == amount_cents
            if match:
                found = {
                    k: c[k] for k in ("id", "customer", "amount_cents", "memo", "idempotencyKey")
                }
                break
        log(f"find_charge {customer} {amount_cents} key={idempotencyKey or None}: {found}")
        body = {"found": found is not None, "charge": found}
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(body))],
            structured_content=body,
        )

    @server.tool(description="Send an email. Irreversible, and there is no way to look one up.")
    async def send_email(to: str, body: str, ctx: Context) -> CallToolResult:
        e = await effect("email", {"to": to, "body": body}, ctx)
        return CallToolResult(
            content=[TextContent(type="text", text=f"sent email {e['id']} to {to}")]
        )

    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--charges", required=True, help="the effects file (JSON lines, one per real effect)"
    )
    ap.add_argument(
        "--late-ms", type=int, default=0, help="answer this late after recording an effect"
    )
    ap.add_argument(
        "--late-times", type=int, default=None, help="only the first K effects are late"
    )
    ap.add_argument(
        "--crash-times",
        type=int,
        default=0,
        help="the first K effects end the process right after they are recorded",
    )
    ap.add_argument(
        "--fail-times",
        type=int,
        default=0,
        help="the first K effects answer with an error (isError) after they are recorded",
    )
    ap.add_argument(
        "--http", type=int, metavar="PORT", help="serve Streamable HTTP at 127.0.0.1:PORT/mcp"
    )
    ap.add_argument(
        "--approval-over",
        type=int,
        metavar="CENTS",
        help="the charge's policy asks a person to approve a charge over CENTS",
    )
    a = ap.parse_args()
    server = build(
        os.path.abspath(a.charges),
        a.late_ms,
        a.late_times,
        a.crash_times,
        a.fail_times,
        a.approval_over,
    )
    if a.http:
        log(f"listening on http://127.0.0.1:{a.http}/mcp")
        server.run("streamable-http", host="127.0.0.1", port=a.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
