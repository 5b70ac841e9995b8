"""Protocol 2026-07-28 through the gateway: no `initialize`, no `Mcp-Session-Id`, and — the
specification's "Statelessness" — no session at all, a stdio connection included. The gateway then
hands the core no session: a keyed call that names no run (`_meta["oncely/run"]`, the gateway's
`--run`) gets the core's `no-run` refusal, never a run made of the connection or the request (a
tool that is not keyed — read-only, overwriting write — needs none and passes through); a call with
a run is keyed by it, and a client that re-issues it (a new request, a new request id, as
2026-07-28 says a client does after a broken stream) gets its result replayed.
Before 2026-07-28 the session stays the run of calls that name none (docs/mcp.md, "Identity").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from agent import Agent, dump, reask, result_meta
from harness import PY, effects, gateway_cmd, payments_cmd
from test_payments import ARGS, assert_keyed, charge_of, stdio_agent
from test_protocol import Raw

pytestmark = pytest.mark.anyio

LATEST = "2026-07-28"


def assert_protocol(agent: Agent, version: str) -> None:
    got = agent.client.protocol_version
    assert got == version, f"negotiated {got}, not {version}"


def assert_no_run(e: MCPError) -> None:
    """The core's `no-run` sentence, as the agent reads it: invalid params, nothing called."""
    assert e.error.code == -32602, e.error
    message = e.error.message
    assert message.startswith('oncely: the oncely tool "charge" needs a run: give the '), message
    assert '_meta["oncely/run"]' in message and "--run" in message, message
    assert "never the model's tool-call id" in message, message


async def refused(agent: Agent) -> None:
    with pytest.raises(MCPError) as e:
        await agent.call("charge", ARGS, timeout_s=30)
    assert_no_run(e.value)


async def keyed_once(agent: Agent, charges: Path, meta: dict[str, Any] | None) -> list[Any]:
    """The charge, then the same call re-issued (a new request, a new id, respelled arguments):
    one charge, the second result its replay."""
    first = await agent.call("charge", ARGS, timeout_s=30, meta=meta)
    again = await agent.call("charge", reask(ARGS), timeout_s=30, meta=meta)
    got = effects(charges)
    assert len(got) == 1, got
    assert charge_of(first)["id"] == charge_of(again)["id"] == got[0]["id"]
    assert_keyed(got[0], again)
    assert not result_meta(first).get("oncely/replayed"), dump(first)
    assert result_meta(again).get("oncely/replayed") is True, dump(again)
    return [first, again]


async def test_stdio_without_a_run_is_refused_with_the_cores_sentence(
    tmp_path: Path, oncely: Path
) -> None:
    charges = tmp_path / "charges.jsonl"
    cmd = gateway_cmd(str(tmp_path / "ledger.db"), upstream=payments_cmd(charges))
    agent, err = stdio_agent(cmd, tmp_path, "gateway", mode=LATEST)
    with err:
        async with agent:
            assert_protocol(agent, LATEST)
            # One connection, two requests: neither is keyed by the connection nor by its id.
            await refused(agent)
            await refused(agent)
            assert effects(charges) == []
            # A read-only tool is not keyed, so it needs no run: the core's rule (its class is in
            # the call's context) lets it pass through, each call answered by the server.
            for _ in range(2):
                found = await agent.call("find_charge", ARGS, timeout_s=30)
                assert not found.is_error, dump(found)
                assert found.structured_content == {"found": False, "charge": None}, dump(found)
            # The run the agent names (its framework's thread id): keyed, re-issued, replayed.
            await keyed_once(agent, charges, {"oncely/run": "thread-1"})
            # Passed through, not replayed: the read-only call now sees the charge.
            found = await agent.call("find_charge", ARGS, timeout_s=30)
            assert found.structured_content["found"] is True, dump(found)
    log = (tmp_path / "gateway.stderr").read_text()
    assert "protocol 2026-07-28 has no sessions" in log, log


async def test_stdio_with_the_gateways_run_is_one_run_across_connections(
    tmp_path: Path, oncely: Path
) -> None:
    """`--run`: the run of every call that names none, whatever connection it comes on."""
    charges = tmp_path / "charges.jsonl"
    db = str(tmp_path / "ledger.db")
    results = []
    for n in range(2):
        cmd = gateway_cmd(db, "--run", "nightly-7", upstream=payments_cmd(charges))
        agent, err = stdio_agent(cmd, tmp_path, f"gateway-{n}", mode=LATEST)
        with err:
            async with agent:
                assert_protocol(agent, LATEST)
                results.append(await agent.call("charge", reask(ARGS) if n else ARGS))
    got = effects(charges)
    assert len(got) == 1, got
    assert [charge_of(r)["id"] for r in results] == [got[0]["id"]] * 2
    assert result_meta(results[1]).get("oncely/replayed") is True, dump(results[1])


async def test_http_without_a_run_is_refused_with_the_cores_sentence(
    tmp_path: Path, procs: Any, oncely: Path
) -> None:
    """Over `--listen`, each 2026-07-28 request is served on its own: the gateway made each one
    a session — a run — of its own before, and a re-issued charge charged again."""
    charges = tmp_path / "charges.jsonl"
    gw = procs.gateway_http(str(tmp_path / "ledger.db"), upstream=payments_cmd(charges))
    async with Agent(gw.url, mode=LATEST) as agent:
        assert_protocol(agent, LATEST)
        await refused(agent)
        await refused(agent)
        assert effects(charges) == []
        await keyed_once(agent, charges, {"oncely/run": "thread-2"})
    assert "refused on 2026-07-28, which has no sessions" in gw.output(), gw.output()


async def test_http_with_the_gateways_run(tmp_path: Path, procs: Any, oncely: Path) -> None:
    charges = tmp_path / "charges.jsonl"
    gw = procs.gateway_http(
        str(tmp_path / "ledger.db"), "--run", "nightly-7", upstream=payments_cmd(charges)
    )
    async with Agent(gw.url, mode=LATEST) as agent:
        assert_protocol(agent, LATEST)
        first, _ = await keyed_once(agent, charges, None)
    # Another client, the same run: the same intent.
    async with Agent(gw.url, mode=LATEST) as other:
        third = await other.call("charge", ARGS, timeout_s=30)
    assert result_meta(third)["oncely/key"] == result_meta(first)["oncely/key"], dump(third)
    assert result_meta(third).get("oncely/replayed") is True, dump(third)
    assert len(effects(charges)) == 1


async def test_http_before_2026_the_session_is_the_run(
    tmp_path: Path, procs: Any, oncely: Path
) -> None:
    """A client of 2025-11-25 opens a session with `initialize`: with no run named, its calls
    are keyed by it — one charge for its re-issued call; another session is another run."""
    charges = tmp_path / "charges.jsonl"
    gw = procs.gateway_http(str(tmp_path / "ledger.db"), upstream=payments_cmd(charges))
    async with Agent(gw.url, mode="legacy") as agent:
        assert_protocol(agent, "2025-11-25")
        await keyed_once(agent, charges, None)
    async with Agent(gw.url, mode="legacy") as other:
        await other.call("charge", ARGS, timeout_s=30)
    assert len(effects(charges)) == 2


# --- the tasks extension (io.modelcontextprotocol/tasks) ---------------------------------------

TASKS = "io.modelcontextprotocol/tasks"
TASKS_SERVER = Path(__file__).resolve().parent / "tasks_server.py"


def meta_2026(tasks: bool, run: str | None = None) -> dict[str, Any]:
    """A 2026-07-28 request's `_meta`: its version, capabilities (the tasks extension or none),
    client; and the run it names, if any."""
    meta: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": LATEST,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}} if tasks else {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-2026", "version": "0"},
    }
    if run is not None:
        meta["oncely/run"] = run
    return meta


def test_a_task_augmented_call_is_keyed_like_any_call(tmp_path: Path, oncely: Path) -> None:
    """A server of the tasks extension makes a task of a call from a client that takes tasks:
    through the gateway the call is keyed by its run, tool and arguments like any other; the
    task handle is its recorded result, so a re-issued call (a new request id) gets the same
    task, and the server ran the export once. `tasks/get` passes through; `tools/list` keeps the
    tool's `execution`."""
    effects_file = tmp_path / "effects.jsonl"
    server = [PY, str(TASKS_SERVER), "--effects", str(effects_file)]
    raw = Raw(gateway_cmd(str(tmp_path / "ledger.db"), upstream=server), tmp_path / "gw.log")
    try:
        [tool] = raw.request("tools/list", {"_meta": meta_2026(True)})["result"]["tools"]
        assert tool["execution"] == {"taskSupport": "optional"}, tool
        assert tool["_meta"]["oncely/class"] == "irreversible-external", tool
        call = {"name": "export", "arguments": {"report": "q3"}, "_meta": meta_2026(True, "t-1")}
        first = raw.request("tools/call", call)["result"]
        assert first["resultType"] == "task" and first["status"] == "working", first
        key = first["_meta"]["oncely/key"]
        again = raw.request("tools/call", call)["result"]
        assert again["taskId"] == first["taskId"], (first, again)
        assert again["_meta"]["oncely/key"] == key and again["_meta"]["oncely/replayed"] is True
        [export] = effects(effects_file, "export")
        assert export["idempotencyKey"] == key, export
        done = raw.request("tasks/get", {"taskId": first["taskId"], "_meta": meta_2026(True)})
        assert done["result"]["status"] == "completed", done
        assert export["id"] in done["result"]["result"]["content"][0]["text"], done
        # No run named: the core's refusal, as for any call.
        refused = raw.request("tools/call", {**call, "_meta": meta_2026(True)})
        assert refused["error"]["code"] == -32602, refused
        assert "needs a run" in refused["error"]["message"], refused
        # A client that takes no tasks: the server runs the call at once; keyed all the same.
        plain = {"name": "export", "arguments": {"report": "q4"}, "_meta": meta_2026(False, "t-1")}
        ran = raw.request("tools/call", plain)["result"]
        assert ran["resultType"] == "complete" and not ran["isError"], ran
        replayed = raw.request("tools/call", plain)["result"]
        assert replayed["_meta"]["oncely/replayed"] is True, replayed
        assert len(effects(effects_file, "export")) == 2
    finally:
        raw.close()
