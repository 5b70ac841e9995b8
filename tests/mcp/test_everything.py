"""MCP's reference server, `@modelcontextprotocol/server-everything` (npm, pinned in
package.json / package-lock.json), behind `oncely mcp`: what a client sees through the gateway
equals what it sees calling the server directly — tools, resources, prompts, ping.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent import Agent, dump
from harness import EVERYTHING, gateway_cmd

pytestmark = pytest.mark.anyio

SERVER = ["node", str(EVERYTHING), "stdio"]
CALLS = [
    ("echo", {"message": "hello through the gateway"}),
    ("get-sum", {"a": 2, "b": 40}),
    ("get-structured-content", {"location": "Chicago"}),
]


def clean(result: Any) -> Any:
    """A result as JSON, without what only the gateway may add (`_meta["oncely/…"]`)."""
    d = dump(result)
    meta = {k: v for k, v in (d.pop("_meta", None) or {}).items() if not k.startswith("oncely/")}
    if meta:
        d["_meta"] = meta
    return d


async def survey(agent: Agent) -> dict[str, Any]:
    """Everything a client does with this server, as comparable JSON."""
    c = agent.client
    caps = c.server_capabilities
    s: dict[str, Any] = {
        "capabilities": sorted(k for k in ("tools", "resources", "prompts") if getattr(caps, k) is not None),
        "tools": {t.name: dump(t) for t in (await c.list_tools()).tools},
    }
    for name, args in CALLS:
        s[f"call {name}"] = clean(await c.call_tool(name, args, read_timeout_seconds=30))
    resources = await c.list_resources()
    s["resources"] = [dump(r) for r in resources.resources]
    s["resource templates"] = [dump(t) for t in (await c.list_resource_templates()).resource_templates]
    first = resources.resources[0].uri
    s[f"read {first}"] = clean(await c.read_resource(first))
    s["read demo://resource/dynamic/text/1"] = clean(await c.read_resource("demo://resource/dynamic/text/1"))
    s["prompts"] = [dump(p) for p in (await c.list_prompts()).prompts]
    s["prompt simple-prompt"] = clean(await c.get_prompt("simple-prompt"))
    s["prompt args-prompt"] = clean(await c.get_prompt("args-prompt", {"city": "Lyon", "state": "Rhône"}))
    s["ping"] = dump(await agent.ping())
    return s


async def direct(tmp: Path) -> dict[str, Any]:
    with open(tmp / "everything-direct.stderr", "w") as err:
        async with Agent(SERVER, errlog=err, name="direct") as agent:
            return await survey(agent)


async def test_everything_direct(tmp_path: Path) -> None:
    assert EVERYTHING.exists(), f"{EVERYTHING} is missing: run `npm ci` in tests/mcp"
    s = await direct(tmp_path)
    assert s["capabilities"] == ["prompts", "resources", "tools"]
    assert {"echo", "get-sum", "get-structured-content"} <= set(s["tools"])
    assert s["call echo"]["content"] == [{"type": "text", "text": "Echo: hello through the gateway"}]
    assert "42" in s["call get-sum"]["content"][0]["text"]
    assert s["call get-structured-content"]["structuredContent"]["conditions"] == "Light rain / drizzle"
    assert s["resources"] and s["prompts"]
    assert s["ping"] == {}
    print(f"server-everything directly: {len(s['tools'])} tools, {len(s['resources'])} resources, "
          f"{len(s['prompts'])} prompts")


async def test_everything_through_gateway(tmp_path: Path, procs: Any, oncely: Path) -> None:
    want = await direct(tmp_path)
    cmd = gateway_cmd(str(tmp_path / "ledger.db"), upstream=SERVER)
    with open(tmp_path / "gateway.stderr", "w") as err:
        async with Agent(cmd, errlog=err, name="through-gateway") as agent:
            print(f"through the gateway: protocol {agent.client.protocol_version}, server {agent.client.server_info}")
            got = await survey(agent)
    extra = sorted(set(got["tools"]) - set(want["tools"]))
    if extra:
        print(f"note: tools listed only through the gateway (its own client capabilities?): {extra}")
    diffs: list[str] = []
    dropped: set[str] = set()
    for name, tool in want["tools"].items():
        through = dict(got["tools"].get(name) or {})
        # The gateway adds each tool's effective class (docs/mcp.md); nothing else of its own.
        meta = {k: v for k, v in (through.pop("_meta", None) or {}).items() if not k.startswith("oncely/")}
        if meta:
            through["_meta"] = meta
        classes = (got["tools"].get(name) or {}).get("_meta", {}).get("oncely/class")
        if classes is None:
            diffs.append(f"tool {name}: no _meta['oncely/class'] through the gateway")
        # rmcp does not model a tool's `execution` (docs/mcp.md, Transports): tolerated only where
        # it says what its absence means anyway (tasks forbidden).
        if tool.get("execution") == {"taskSupport": "forbidden"} and "execution" not in through:
            through["execution"] = tool["execution"]
            dropped.add(name)
        if through != tool:
            diffs.append(f"tool {name}:\n  through the gateway: {json.dumps(through)}\n  directly: {json.dumps(tool)}")
    for k in want:
        if k != "tools" and got[k] != want[k]:
            diffs.append(f"{k}:\n  through the gateway: {json.dumps(got[k])[:1500]}\n  directly: {json.dumps(want[k])[:1500]}")
    if dropped:
        print(f"note: `execution: {{taskSupport: forbidden}}` not passed on for {len(dropped)} tools (rmcp)")
    assert got["tools"]["echo"]["_meta"]["oncely/class"] == "read-only"
    assert not diffs, "through the gateway != directly:\n" + "\n".join(diffs)
    print(f"server-everything through oncely mcp: {len(want) - 1} answers equal to the direct ones, "
          f"{len(want['tools'])} tools")
