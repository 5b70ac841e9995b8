"""MCP's reference server, `@modelcontextprotocol/server-everything` (npm, pinned in
package.json / package-lock.json), behind `oncely mcp`: what a client sees through the gateway
equals what it sees calling the server directly — initialize, tools, resources, prompts, ping.

One survey of each (the same requests, in the same order, each through its own server process),
then one test per part of the protocol.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent import Agent, dump
from conftest import require_gateway
from harness import EVERYTHING, gateway_cmd

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


def untimed(result: Any) -> Any:
    """The dynamic resources say when they were made ("created at 9:38:03 PM"): not compared."""
    return json.loads(re.sub(r"created at [0-9:]+ ?[AP]M", "created at <time>", json.dumps(result)))


async def survey(agent: Agent) -> dict[str, Any]:
    """Everything a client does with this server, as comparable JSON."""
    c = agent.client
    caps = c.server_capabilities
    info = c.server_info
    s: dict[str, Any] = {
        "initialize": {
            "protocol": c.protocol_version,
            "server": info and {"name": info.name, "version": info.version},
            "capabilities": sorted(
                k for k in ("tools", "resources", "prompts") if getattr(caps, k) is not None
            ),
        },
        "tools": {t.name: dump(t) for t in (await c.list_tools()).tools},
        "calls": {},
        "resources": {},
        "prompts": {},
    }
    for name, args in CALLS:
        s["calls"][name] = clean(await c.call_tool(name, args, read_timeout_seconds=30))
    resources = await c.list_resources()
    r = s["resources"]
    r["list"] = [dump(x) for x in resources.resources]
    r["templates"] = [dump(t) for t in (await c.list_resource_templates()).resource_templates]
    first = resources.resources[0].uri
    r[f"read {first}"] = clean(await c.read_resource(first))
    r["read demo://resource/dynamic/text/1"] = untimed(
        clean(await c.read_resource("demo://resource/dynamic/text/1"))
    )
    p = s["prompts"]
    p["list"] = [dump(x) for x in (await c.list_prompts()).prompts]
    p["get simple-prompt"] = clean(await c.get_prompt("simple-prompt"))
    p["get args-prompt"] = clean(
        await c.get_prompt("args-prompt", {"city": "Lyon", "state": "Rhône"})
    )
    s["ping"] = dump(await agent.ping())
    return s


async def run_survey(cmd: list[str], stderr: Path, name: str) -> dict[str, Any]:
    with open(stderr, "w") as err:
        try:
            async with Agent(cmd, errlog=err, name=name) as agent:
                return await survey(agent)
        except BaseException:
            err.flush()
            print(f"----- {stderr}\n{stderr.read_text(errors='replace')[-4000:]}")
            raise


@pytest.fixture(scope="module")
def direct(tmp_path_factory: Any) -> dict[str, Any]:
    assert EVERYTHING.exists(), f"{EVERYTHING} is missing: run `npm ci` in tests/mcp"
    tmp = tmp_path_factory.mktemp("everything-direct")
    return anyio.run(run_survey, SERVER, tmp / "server.stderr", "direct")


@pytest.fixture(scope="module")
def through(tmp_path_factory: Any, direct: dict[str, Any]) -> dict[str, Any]:
    require_gateway()
    tmp = tmp_path_factory.mktemp("everything-gateway")
    cmd = gateway_cmd(str(tmp / "ledger.db"), upstream=SERVER)
    s = anyio.run(run_survey, cmd, tmp / "gateway.stderr", "through-gateway")
    print(f"through the gateway: {s['initialize']}")
    return s


def differences(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    return [
        f"{k}:\n  through the gateway: {json.dumps(got.get(k))[:1500]}\n"
        f"  directly: {json.dumps(want[k])[:1500]}"
        for k in want
        if got.get(k) != want[k]
    ]


def test_direct(direct: dict[str, Any]) -> None:
    s = direct
    assert s["initialize"]["capabilities"] == ["prompts", "resources", "tools"]
    assert s["initialize"]["server"]["name"] == "mcp-servers/everything"
    assert {"echo", "get-sum", "get-structured-content"} <= set(s["tools"])
    assert s["calls"]["echo"]["content"] == [
        {"type": "text", "text": "Echo: hello through the gateway"}
    ]
    assert "42" in s["calls"]["get-sum"]["content"][0]["text"]
    assert (
        s["calls"]["get-structured-content"]["structuredContent"]["conditions"]
        == "Light rain / drizzle"
    )
    assert s["resources"]["list"] and s["prompts"]["list"]
    assert s["ping"] == {}
    print(
        f"server-everything directly: {len(s['tools'])} tools, "
        f"{len(s['resources']['list'])} resources, {len(s['prompts']['list'])} prompts"
    )


def test_initialize_through_gateway(through: dict[str, Any], direct: dict[str, Any]) -> None:
    assert through["initialize"] == direct["initialize"]


def test_tools_list_through_gateway(through: dict[str, Any], direct: dict[str, Any]) -> None:
    got, want = through["tools"], direct["tools"]
    extra = sorted(set(got) - set(want))
    assert not extra, f"tools listed only through the gateway: {extra}"
    diffs: list[str] = []
    for name, tool in want.items():
        if name not in got:
            diffs.append(f"tool {name}: missing through the gateway")
            continue
        t = dict(got[name])
        # The gateway adds each tool's effective class (docs/mcp.md); nothing else of its own.
        meta = dict(t.pop("_meta", None) or {})
        if "oncely/class" not in meta:
            diffs.append(f"tool {name}: no _meta['oncely/class'] through the gateway")
        meta = {k: v for k, v in meta.items() if not k.startswith("oncely/")}
        if meta:
            t["_meta"] = meta
        # A tool's `execution` (tasks), which rmcp does not model, is passed on as it is.
        if t != tool:
            members = sorted(k for k in set(t) | set(tool) if t.get(k) != tool.get(k))
            diffs.append(
                f"tool {name}: "
                + "; ".join(
                    f"{k}: {json.dumps(t.get(k))} through the gateway, "
                    f"{json.dumps(tool.get(k))} directly"
                    for k in members
                )
            )
    tasks = {n: t["execution"] for n, t in want.items() if "execution" in t}
    print(f"tools with `execution`, directly and through the gateway: {json.dumps(tasks)}")
    assert tasks.get("simulate-research-query") == {"taskSupport": "required"}, tasks
    assert {n: got[n].get("execution") for n in tasks} == tasks
    assert got["echo"]["_meta"]["oncely/class"] == "read-only"
    assert not diffs, "tools/list through the gateway != directly:\n" + "\n".join(diffs)


def test_tool_calls_through_gateway(through: dict[str, Any], direct: dict[str, Any]) -> None:
    diffs = differences(through["calls"], direct["calls"])
    assert not diffs, "tools/call through the gateway != directly:\n" + "\n".join(diffs)


def test_resources_through_gateway(through: dict[str, Any], direct: dict[str, Any]) -> None:
    diffs = differences(through["resources"], direct["resources"])
    assert not diffs, "resources through the gateway != directly:\n" + "\n".join(diffs)


def test_prompts_through_gateway(through: dict[str, Any], direct: dict[str, Any]) -> None:
    diffs = differences(through["prompts"], direct["prompts"])
    assert not diffs, "prompts through the gateway != directly:\n" + "\n".join(diffs)


def test_ping_through_gateway(through: dict[str, Any]) -> None:
    assert through["ping"] == {}


@pytest.mark.anyio
async def test_tools_execution_through_the_gateway_over_http(tmp_path: Path, procs: Any) -> None:
    """Over `--listen` too, a tool's `execution` reaches the agent as the server listed it."""
    require_gateway()
    gw = procs.gateway_http(str(tmp_path / "ledger.db"), upstream=SERVER)
    async with Agent(gw.url, name="http") as agent:
        tools = {t.name: dump(t) for t in (await agent.list_tools()).tools}
    assert tools["simulate-research-query"]["execution"] == {"taskSupport": "required"}, tools
    assert tools["echo"]["execution"] == {"taskSupport": "forbidden"}, tools["echo"]
    assert tools["echo"]["_meta"]["oncely/class"] == "read-only"
