"""An MCP server (the MCP Python SDK's MCPServer) whose tools honour the agent's key with
``oncely.provider.mcp.once``, for the provider tests:

    python mcp_server.py --ledger L.db --effects E.jsonl --gates DIR [--http PORT]

Every effect is one fsynced line of the effects file. ``refund``'s ``gate`` argument (part of
the arguments, so of the request) names a gate: the tool writes ``DIR/GATE.entered`` and waits
for ``DIR/GATE.release`` before answering.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context

import oncely
from oncely.provider import current_request
from oncely.provider.mcp import once


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ledger", required=True)
    ap.add_argument("--effects", required=True)
    ap.add_argument("--gates", required=True)
    ap.add_argument("--http", type=int)
    a = ap.parse_args()
    effects, gates = Path(a.effects), Path(a.gates)
    ledger = oncely.Ledger.sqlite(a.ledger, owner=f"mcp-{os.getpid()}")
    server = MCPServer("refunds")

    def performed(kind: str, fields: dict[str, Any]) -> int:
        info = current_request()
        row = {
            "kind": kind,
            **fields,
            "client_key": None if info is None else info.client_key,
            "key": None if info is None else info.key,
        }
        with effects.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
            f.flush()
            os.fsync(f.fileno())
        return sum(1 for _ in effects.open())

    @server.tool(name="refund", description="Refund a charge. Irreversible.")
    @once(ledger, scope="acct_1", tool="refund")
    async def refund(charge: str, amount: int, gate: str = "") -> dict[str, Any]:
        n = performed("refund", {"charge": charge, "amount": amount})
        if gate:
            (gates / f"{gate}.entered").write_text("1")
            with anyio.fail_after(60):
                while not (gates / f"{gate}.release").exists():
                    await anyio.sleep(0.01)
        return {"id": f"re_{n}", "charge": charge, "amount": amount}

    def tenant(ctx: Context) -> str:
        meta: Any = ctx.request_context.meta or {}
        return str(meta.get("tenant", "acct_1"))

    @server.tool(name="transfer", description="Move money; the key is required.")
    @once(ledger, scope=tenant, tool="transfer", required=True)
    def transfer(to: str, amount: int, ctx: Context) -> str:
        assert ctx.request_context is not None  # the function's own Context is kept
        n = performed("transfer", {"to": to, "amount": amount})
        return f"transfer #{n} to {to}"

    @server.tool(name="explode", description="Fails after its effect.")
    @once(ledger, scope="acct_1", tool="explode")
    async def explode(what: str) -> str:
        performed("explode", {"what": what})
        raise RuntimeError("the provider did not answer")

    @server.tool(name="stall", description="Never answers within its maxCallMs.")
    @once(ledger, scope="acct_1", tool="stall", policy={"maxCallMs": 500})
    async def stall(what: str) -> str:
        performed("stall", {"what": what})
        await anyio.sleep(30)  # cancelled at the policy's maxCallMs: no answer of its own
        return "late"

    if a.http:
        server.run("streamable-http", host="127.0.0.1", port=a.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
