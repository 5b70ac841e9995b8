"""oncely.provider.mcp in a real MCPServer process (tests/provider/mcp_server.py, over stdio),
driven by the real MCP SDK client: a retry after a client timeout, replays marked, a reused key
refused, a concurrent duplicate refused, a required key, a tool that raised left in doubt. The
effects are counted in a file, from outside the server."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness import HERE, PY, WAIT_S, effects
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import REQUEST_TIMEOUT, CallToolResult

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Env:
    def __init__(self, tmp: Path, client: Client) -> None:
        self.tmp, self.client = tmp, client
        self.gates = tmp / "gates"

    def effects(self, key: str | None = None) -> list[dict[str, Any]]:
        rows = effects(self.tmp / "effects.jsonl")
        return [e for e in rows if key is None or e["client_key"] == key]

    async def call(
        self, tool: str, args: dict[str, Any], key: str | None, timeout: float = WAIT_S, **meta: Any
    ) -> CallToolResult:
        m = {**({"idempotencyKey": key} if key else {}), **meta}
        return await self.client.call_tool(tool, args, read_timeout_seconds=timeout, meta=m or None)

    async def wait_file(self, path: Path) -> None:
        with anyio.fail_after(WAIT_S):
            while not path.exists():
                await anyio.sleep(0.01)


def meta(r: CallToolResult) -> dict[str, Any]:
    d: dict[str, Any] = r.model_dump(mode="json", by_alias=True, exclude_none=True)
    return d.get("_meta") or {}


def text(r: CallToolResult) -> str:
    return "\n".join(c.text for c in r.content if getattr(c, "type", None) == "text")


@pytest.fixture
async def env(tmp_path: Path) -> AsyncIterator[Env]:
    (tmp_path / "gates").mkdir()
    cmd = [str(HERE / "mcp_server.py"), "--ledger", str(tmp_path / "ledger.db")]
    cmd += ["--effects", str(tmp_path / "effects.jsonl"), "--gates", str(tmp_path / "gates")]
    params = StdioServerParameters(command=PY, args=cmd, env=dict(os.environ))
    with (tmp_path / "server.log").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            yield Env(tmp_path, client)


async def test_a_retry_after_a_client_timeout_gets_the_one_result_replayed(env: Env) -> None:
    key, gate = f"k-{uuid.uuid4()}", f"g-{uuid.uuid4()}"
    args = {"charge": "ch_1", "amount": 500, "gate": gate}
    with pytest.raises(MCPError) as e:
        await env.call("refund", args, key, timeout=0.5)
    assert e.value.error.code == REQUEST_TIMEOUT
    await env.wait_file(env.gates / f"{gate}.entered")
    # The handler still holds the key (the cancelled request did not cut it short).
    busy = await env.call("refund", args, key)
    assert busy.is_error and meta(busy)["oncely/refusal"] == "request-in-progress"
    assert text(busy).startswith("oncely: ")
    (env.gates / f"{gate}.release").write_text("1")
    with anyio.fail_after(WAIT_S):
        while True:
            r = await env.call("refund", args, key)
            if not (r.is_error and meta(r).get("oncely/refusal") == "request-in-progress"):
                break
            await anyio.sleep(0.05)
    assert not r.is_error, text(r)
    assert meta(r)["oncely/replayed"] is True and meta(r)["oncely/key"] == key
    assert r.structured_content == {"id": "re_1", "charge": "ch_1", "amount": 500}
    assert len(env.effects(key)) == 1


async def test_a_repeat_is_replayed_marked_and_reordered_arguments_are_the_same(env: Env) -> None:
    key = f"k-{uuid.uuid4()}"
    first = await env.call("refund", {"charge": "ch_2", "amount": 100}, key)
    assert not first.is_error and "oncely/replayed" not in meta(first)
    again = await env.call("refund", {"amount": 100.0, "charge": "ch_2"}, key)
    assert meta(again)["oncely/replayed"] is True
    assert again.structured_content == first.structured_content
    assert text(again) == text(first)
    # The key under _meta["oncely/key"] is the same key.
    third = await env.client.call_tool(
        "refund", {"charge": "ch_2", "amount": 100}, meta={"oncely/key": key}
    )
    assert meta(third)["oncely/replayed"] is True
    assert len(env.effects(key)) == 1
    # Without a key: an ordinary call, every time.
    await env.call("refund", {"charge": "ch_2", "amount": 100}, None)
    await env.call("refund", {"charge": "ch_2", "amount": 100}, None)
    assert len(env.effects()) == 3


async def test_the_same_key_with_other_arguments_is_refused(env: Env) -> None:
    key = f"k-{uuid.uuid4()}"
    assert not (await env.call("refund", {"charge": "ch_3", "amount": 1}, key)).is_error
    r = await env.call("refund", {"charge": "ch_3", "amount": 2}, key)
    assert r.is_error
    assert meta(r)["oncely/refusal"] == "idempotency-key-reused"
    assert meta(r)["oncely/pointer"] == "/amount"
    assert text(r).startswith("oncely: ") and "/amount" in text(r)
    assert len(env.effects(key)) == 1


async def test_a_concurrent_duplicate_is_refused_while_the_first_runs(env: Env) -> None:
    key, gate = f"k-{uuid.uuid4()}", f"g-{uuid.uuid4()}"
    args = {"charge": "ch_4", "amount": 700, "gate": gate}
    got: dict[str, CallToolResult] = {}

    async def first() -> None:
        got["a"] = await env.call("refund", args, key)

    async with anyio.create_task_group() as tg:
        tg.start_soon(first)
        await env.wait_file(env.gates / f"{gate}.entered")
        b = await env.call("refund", args, key)
        assert b.is_error and meta(b)["oncely/refusal"] == "request-in-progress"
        assert meta(b)["oncely/retryAfterS"] >= 1
        (env.gates / f"{gate}.release").write_text("1")
    a = got["a"]
    assert not a.is_error and "oncely/replayed" not in meta(a)
    again = await env.call("refund", args, key)
    assert meta(again)["oncely/replayed"] is True
    assert again.structured_content == a.structured_content
    assert len(env.effects(key)) == 1


async def test_a_required_key_and_the_functions_own_context(env: Env) -> None:
    r = await env.call("transfer", {"to": "bob", "amount": 5}, None)
    assert r.is_error and meta(r)["oncely/refusal"] == "idempotency-key-missing"
    assert env.effects() == []
    key = f"k-{uuid.uuid4()}"
    a = await env.call("transfer", {"to": "bob", "amount": 5}, key, tenant="acct_9")
    b = await env.call("transfer", {"to": "bob", "amount": 5}, key, tenant="acct_9")
    assert not a.is_error and meta(b)["oncely/replayed"] is True
    assert b.structured_content == a.structured_content == {"result": "transfer #1 to bob"}
    # Another tenant (the scope is a function of the Context): another request.
    c = await env.call("transfer", {"to": "bob", "amount": 5}, key, tenant="acct_8")
    assert not c.is_error and "oncely/replayed" not in meta(c)
    assert len(env.effects(key)) == 2


async def test_a_tool_that_raised_is_in_doubt_and_never_run_again(env: Env) -> None:
    key = f"k-{uuid.uuid4()}"
    first = await env.call("explode", {"what": "x"}, key)
    assert first.is_error and "oncely/refusal" not in meta(first)  # the SDK's own error result
    for _ in range(2):
        r = await env.call("explode", {"what": "x"}, key)
        assert r.is_error
        assert meta(r)["oncely/refusal"] in ("outcome-escalated", "outcome-in-doubt")
    assert len(env.effects(key)) == 1


async def test_a_tool_cancelled_at_its_deadline_gets_the_refusal_not_a_crash(env: Env) -> None:
    key = f"k-{uuid.uuid4()}"
    first = await env.call("stall", {"what": "x"}, key)
    # The function has no answer (cancelled at maxCallMs): the core's refusal is the result.
    assert first.is_error, text(first)
    assert meta(first)["oncely/refusal"] in ("outcome-escalated", "outcome-in-doubt"), text(first)
    again = await env.call("stall", {"what": "x"}, key)
    assert again.is_error and meta(again)["oncely/refusal"] in (
        "outcome-escalated",
        "outcome-in-doubt",
    )
    assert len(env.effects(key)) == 1
