"""The duplicate charges an agent really makes, against the bare payments server (the duplicate
happens: 2 real effects) and through `oncely mcp` (exactly 1).

Each scenario has a `bare` and a `gateway` test; the closing table lists both counts. The
effects file is the provider's own record: one line per effect that really happened.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

import harness
from agent import Agent, dump, reask, result_meta, result_text
from conftest import report
from harness import AGENT, EFFECT_S, PY, await_for, effects, gateway_cmd, payments_cmd

pytestmark = pytest.mark.anyio

ARGS = {"customer": "cus_1", "amount_cents": 1000, "memo": "order 42"}
EMAIL = {"to": "bob@example.com", "body": "Your refund is on its way."}
# The client's read timeout, and how late the server answers the first effect: later than that.
TIMEOUT_S = 1.5
LATE_MS = 3000
# a.: the answer comes after the client's timeout but within the charge's maxCallMs (2000), so
# the gateway records the late answer itself and the retry replays it (under heavy load it may
# instead reconcile through find_charge: either way, one charge).
A_TIMEOUT_S = 0.8
A_LATE_MS = 1500

EMAIL_POLICY = {"class": "irreversible-external", "key": {}, "reconcile": "manual", "leaseMs": 1000}


def charge_of(result: Any) -> dict[str, Any]:
    """The charge a result speaks of: a charge's own result, or the `find_charge` lookup's result
    that the gateway recorded when it reconciled (both carry `{"charge": {...}}`)."""
    assert not result.is_error, f"isError result: {result_text(result)!r}"
    body = result.structured_content
    if body is None:
        body = json.loads(result.content[0].text)
    assert body.get("charge"), f"no charge in {dump(result)}"
    return body["charge"]


def stdio_agent(cmd: list[str], tmp: Path, name: str, **kw: Any) -> tuple[Agent, Any]:
    err = open(tmp / f"{name}.stderr", "w")  # noqa: SIM115 (the caller closes it)
    return Agent(cmd, errlog=err, name=name, **kw), err


def assert_keyed(effect: dict[str, Any], result: Any) -> None:
    """The gateway sent its key upstream, and the result names the same key."""
    key = result_meta(result).get("oncely/key")
    assert isinstance(key, str) and key.startswith("oncely1:"), (
        f"result _meta has no oncely/key: {dump(result)}"
    )
    assert effect["idempotencyKey"] == key, (
        f"upstream got _meta.idempotencyKey {effect['idempotencyKey']!r}, not {key}"
    )
    assert effect["oncelyKey"] == key, (
        f"upstream got _meta['oncely/key'] {effect['oncelyKey']!r}, not {key}"
    )


def assert_retried_twice_over(got: list[dict[str, Any]], result: Any, attempts: list[str]) -> None:
    """A bare server whose first answer came late: the retry charged again. Under load a retry may
    time out too and charge a third time; what the bare path must show is that the late charge
    was repeated, and that the answer the agent kept is one of the repeats."""
    assert len(got) >= 2, got
    assert len(got) <= 1 + sum("timed out" in a for a in attempts), (got, attempts)
    assert charge_of(result)["id"] in [g["id"] for g in got[1:]], (got, attempts)


# --- a. the client retries after a timeout ---------------------------------------------------


async def scenario_a(tmp: Path, cmd: list[str], name: str) -> tuple[Any, Agent]:
    agent, err = stdio_agent(cmd, tmp, name)
    with err:
        async with agent:
            result = await agent.call("charge", ARGS, timeout_s=A_TIMEOUT_S, retries=20)
    print(*agent.attempts, sep="\n")
    assert "timed out" in agent.attempts[0], f"the first attempt did not time out: {agent.attempts}"
    return result, agent


async def test_a_retry_after_timeout_bare(tmp_path: Path) -> None:
    charges = tmp_path / "charges.jsonl"
    result, agent = await scenario_a(
        tmp_path, payments_cmd(charges, A_LATE_MS, late_times=1), "agent"
    )
    got = effects(charges)
    report("a. client retry after a timeout", "bare", len(got))
    assert_retried_twice_over(got, result, agent.attempts)


async def test_a_retry_after_timeout_gateway(tmp_path: Path, procs: Any, oncely: Path) -> None:
    charges = tmp_path / "charges.jsonl"
    # The agent's client speaks 2026-07-28, which has no session: the run is the gateway's.
    cmd = gateway_cmd(
        str(tmp_path / "ledger.db"),
        "--run",
        "run-a",
        "--wait",
        "20000",
        upstream=payments_cmd(charges, A_LATE_MS, 1),
    )
    result, _ = await scenario_a(tmp_path, cmd, "gateway")
    how = (
        "reconciled through find_charge"
        if result_meta(result).get("oncely/reconciled")
        else "the late answer"
    )
    print(f"the retry got {how}")
    got = effects(charges)
    report("a. client retry after a timeout", "gateway", len(got))
    assert len(got) == 1, got
    assert charge_of(result)["id"] == got[0]["id"]
    assert_keyed(got[0], result)
    assert result_meta(result).get("oncely/replayed") is True, (
        f"the retry's result is not a replay: {dump(result)}"
    )


# --- b. the model asks again, its arguments reordered and reformatted --------------------------


async def scenario_b(
    tmp: Path,
    cmd: list[str],
    name: str,
    mode: str = "auto",
    meta: dict[str, Any] | None = None,
) -> Any:
    agent, err = stdio_agent(cmd, tmp, name, mode=mode)
    again = reask(ARGS)
    assert json.dumps(again) != json.dumps(ARGS)
    with err:
        async with agent:
            if mode != "auto":
                assert_protocol(agent, mode)
            first = await agent.try_call("charge", ARGS, timeout_s=TIMEOUT_S, meta=meta)
            assert first is None, f"the first call was not left in doubt: {dump(first)}"
            # The model saw an error; it asks again in its own words:
            # {"memo": …, "amount_cents": 1000.0, …}
            result = await agent.call("charge", again, timeout_s=30, meta=meta)
    print(f"asked {json.dumps(ARGS)}, then {json.dumps(again)}")
    print(*agent.attempts, sep="\n")
    return result


async def test_b_model_reasks_bare(tmp_path: Path) -> None:
    charges = tmp_path / "charges.jsonl"
    result = await scenario_b(tmp_path, payments_cmd(charges, LATE_MS, late_times=1), "agent")
    got = effects(charges)
    report("b. model re-asks, args reordered/reformatted", "bare", len(got))
    assert len(got) == 2, got
    assert charge_of(result)["id"] == got[1]["id"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_b_model_reasks_gateway(tmp_path: Path, procs: Any, oncely: Path, mode: str) -> None:
    # No --run. Before 2026-07-28 the run is the MCP session, and the re-ask comes in the same
    # session; 2026-07-28 has no session: the agent names its run (its framework's thread id).
    charges = tmp_path / "charges.jsonl"
    cmd = gateway_cmd(
        str(tmp_path / "ledger.db"), "--wait", "20000", upstream=payments_cmd(charges, LATE_MS, 1)
    )
    meta = {"oncely/run": "thread-b"} if mode == "2026-07-28" else None
    result = await scenario_b(tmp_path, cmd, "gateway", mode, meta)
    got = effects(charges)
    scenario = "b. model re-asks, args reordered/reformatted"
    report(scenario if mode == "2026-07-28" else f"{scenario} (legacy)", "gateway", len(got))
    assert len(got) == 1, got
    assert charge_of(result)["id"] == got[0]["id"]
    assert_keyed(got[0], result)
    assert result_meta(result).get("oncely/replayed") is True, (
        f"the re-ask's result is not a replay: {dump(result)}"
    )


# --- c. two clients, the same intent, at the same time -----------------------------------------


async def both_at_once(urls: list[str]) -> list[Any]:
    results: list[Any] = [None, None]
    async with Agent(urls[0], name="agent-1") as a1, Agent(urls[1], name="agent-2") as a2:

        async def one(i: int, agent: Agent) -> None:
            results[i] = await agent.call("charge", ARGS if i == 0 else reask(ARGS), timeout_s=60)

        async with anyio.create_task_group() as tg:
            tg.start_soon(one, 0, a1)
            tg.start_soon(one, 1, a2)
    return results


async def test_c_two_clients_at_once_bare(tmp_path: Path, procs: Any) -> None:
    charges = tmp_path / "charges.jsonl"
    server = procs.payments_http(charges, late_ms=1500)
    results = await both_at_once([server.url, server.url])
    got = effects(charges)
    report("c. two clients at once (PostgreSQL, 2 gateways)", "bare", len(got))
    assert len(got) == 2, got
    assert {charge_of(r)["id"] for r in results} == {g["id"] for g in got}


async def test_c_two_clients_at_once_gateway(
    tmp_path: Path, procs: Any, oncely: Path, pg_url: str
) -> None:
    charges = tmp_path / "charges.jsonl"
    server = procs.payments_http(charges, late_ms=1500)
    run = f"run-c-{uuid.uuid4().hex[:8]}"
    gws = [
        procs.gateway_http(
            pg_url, "--run", run, "--wait", "30000", upstream=server.url, name=f"gateway-{i}"
        )
        for i in (1, 2)
    ]
    results = await both_at_once([g.url for g in gws])
    got = effects(charges)
    report("c. two clients at once (PostgreSQL, 2 gateways)", "gateway", len(got))
    for r in results:
        print(json.dumps(dump(r)))
    assert len(got) == 1, got
    assert charge_of(results[0])["id"] == charge_of(results[1])["id"] == got[0]["id"]
    assert_keyed(got[0], results[0])
    assert result_meta(results[0])["oncely/key"] == result_meta(results[1])["oncely/key"]
    replayed = [result_meta(r).get("oncely/replayed") is True for r in results]
    assert replayed.count(True) == 1, (
        f"one call executes and the other replays it; replayed: {replayed}"
    )


# --- d. the process between the agent and the provider dies mid-call ---------------------------


def agent_cli(url: str, log: Path) -> subprocess.Popen[bytes]:
    """An agent in its own process (agent.py's command line), calling charge once."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            [PY, str(AGENT), "--url", url, "--timeout", "60", "charge", json.dumps(ARGS)],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


async def test_d_crash_mid_call_bare(tmp_path: Path, procs: Any) -> None:
    # Without a gateway, what dies mid-call is the agent itself; its restart calls again.
    charges = tmp_path / "charges.jsonl"
    server = procs.payments_http(charges, late_ms=10_000, late_times=1)
    first = agent_cli(server.url, tmp_path / "agent-1.stderr")
    try:
        await await_for(lambda: effects(charges), EFFECT_S, "the first charge")
    finally:
        first.kill()
        first.wait(10)
    async with Agent(server.url, name="agent-2") as agent:
        result = await agent.call("charge", ARGS, timeout_s=30)
    got = effects(charges)
    report("d. gateway SIGKILLed mid-call, restarted", "bare", len(got))
    assert len(got) == 2, got
    assert charge_of(result)["id"] == got[1]["id"]


async def test_d_crash_mid_call_gateway(tmp_path: Path, procs: Any, oncely: Path) -> None:
    charges = tmp_path / "charges.jsonl"
    server = procs.payments_http(charges, late_ms=10_000, late_times=1)
    db = str(tmp_path / "ledger.db")
    run = "run-d"
    gw1 = procs.gateway_http(
        db, "--run", run, "--wait", "30000", upstream=server.url, name="gateway-1"
    )
    first = agent_cli(gw1.url, tmp_path / "agent-1.stderr")
    try:
        # The charge is made; its answer is still on the way: the gateway dies before recording it.
        await await_for(lambda: effects(charges), EFFECT_S, "the first charge")
        gw1.sigkill()
    finally:
        first.kill()
        first.wait(10)
    assert gw1.proc.returncode == -9
    gw2 = procs.gateway_http(
        db, "--run", run, "--wait", "30000", upstream=server.url, name="gateway-2"
    )
    async with Agent(gw2.url, name="agent-2") as agent:
        result = await agent.call("charge", ARGS, timeout_s=60)
    print(json.dumps(dump(result)))
    got = effects(charges)
    report("d. gateway SIGKILLed mid-call, restarted", "gateway", len(got))
    assert len(got) == 1, got
    assert charge_of(result)["id"] == got[0]["id"]
    meta = result_meta(result)
    assert meta.get("oncely/replayed") is True or any("reconcil" in k for k in meta), (
        f"the result is not marked replayed/reconciled: _meta = {meta}"
    )
    assert_keyed(got[0], result)


# --- e. an irreversible tool with no lookup: a human settles it -----------------------------


async def test_e_manual_reconcile_bare(tmp_path: Path) -> None:
    charges = tmp_path / "effects.jsonl"
    agent, err = stdio_agent(payments_cmd(charges, 30_000, late_times=1), tmp_path, "agent")
    with err:
        async with agent:
            result = await agent.call("send_email", EMAIL, timeout_s=TIMEOUT_S, retries=3)
    print(*agent.attempts, sep="\n")
    got = effects(charges, "email")
    report("e. send_email, manual reconcile, resolved", "bare", len(got), "emails")
    assert "timed out" in agent.attempts[0]
    assert not result.is_error
    assert len(got) == 2, got


def ledger_json(db: str, *args: str) -> Any:
    r = harness.oncely("ledger", *args, "--db", db, "--json")
    assert r.returncode == 0, f"oncely ledger {' '.join(args)} exited {r.returncode}: {r.stderr}"
    return json.loads(r.stdout)


async def test_e_manual_reconcile_gateway(tmp_path: Path, procs: Any, oncely: Path) -> None:
    charges = tmp_path / "effects.jsonl"
    db = str(tmp_path / "ledger.db")
    policies = tmp_path / "policies.json"
    policies.write_text(json.dumps({"send_email": EMAIL_POLICY}))
    cmd = gateway_cmd(
        db,
        "--run",
        "run-e",
        "--policies",
        str(policies),
        "--call-timeout",
        "1000",
        "--wait",
        "1000",
        upstream=payments_cmd(charges, 30_000, late_times=1),
    )
    agent, err = stdio_agent(cmd, tmp_path, "gateway")
    with err:
        async with agent:
            # The email's answer never comes: the outcome is unknown, and no tool can tell.
            result = await agent.call("send_email", EMAIL, timeout_s=5, retries=3)
            print(*agent.attempts, sep="\n")
            text = result_text(result)
            assert result.is_error, f"not an error: {dump(result)}"
            assert text.startswith("oncely: "), text
            assert "try again" not in text.lower(), text
            # The retry, from the agent or the model, gets the same answer: never a second email.
            again = await agent.call("send_email", EMAIL, timeout_s=10)
            print(agent.attempts[-1])
            assert again.is_error and result_text(again).startswith("oncely: "), dump(again)
            assert len(effects(charges, "email")) == 1

            # A human looks: the ledger lists it, in doubt or escalated.
            def doubtful() -> Any:
                rows = [
                    e
                    for e in ledger_json(db, "list", "--scope", "mcp")
                    if e["tool"] == "send_email"
                ]
                return rows if rows and rows[0]["state"] in ("in-doubt", "escalated") else None

            rows = await await_for(
                doubtful, 20, "the send_email entry to be in doubt or escalated", 0.2
            )
            assert len(rows) == 1, rows
            key = rows[0]["key"]
            if "oncely/key" in result_meta(result):
                assert result_meta(result)["oncely/key"] == key
            listed = harness.oncely("ledger", "list", "--db", db, "--scope", "mcp")
            print(listed.stdout)
            assert key in listed.stdout and "send_email" in listed.stdout
            shown = ledger_json(db, "show", "--scope", "mcp", key)
            assert (
                shown["key"] == key
                and shown["tool"] == "send_email"
                and shown["state"] == rows[0]["state"]
            )

            # … checks the mail provider by hand: it was sent. They say so.
            sent = effects(charges, "email")[0]
            settled = {
                "content": [{"type": "text", "text": f"sent email {sent['id']} to {EMAIL['to']}"}]
            }
            r = harness.oncely(
                "ledger",
                "resolve",
                "--db",
                db,
                "--scope",
                "mcp",
                key,
                "--happened",
                json.dumps(settled),
                "--by",
                "test-operator",
                "--version",  # the entry as they saw it: refused if it changed since
                str(shown["version"]),
            )
            assert r.returncode == 0, f"resolve exited {r.returncode}: {r.stderr}"
            assert "(settlement stl-" in r.stdout, r.stdout
            after = ledger_json(db, "show", "--scope", "mcp", key)
            assert after["state"] == "done" and after["settlement"] in r.stdout

            # The same call now replays what the human recorded.
            final = await agent.call("send_email", EMAIL, timeout_s=10)
            print(json.dumps(dump(final)))
    got = effects(charges, "email")
    report("e. send_email, manual reconcile, resolved", "gateway", len(got), "emails")
    assert not final.is_error, dump(final)
    assert result_text(final) == settled["content"][0]["text"]
    assert result_meta(final).get("oncely/replayed") is True, dump(final)
    assert len(got) == 1, got


async def test_f_approval_through_the_gateway(tmp_path: Path, procs: Any, oncely: Path) -> None:
    """A charge over 500 cents waits for a person (the server declares it, next to the tool's
    schema): the agent's call is answered "awaiting approval" (one request, whatever the agent
    asks again: it may poll); approved with the CLI, the next call charges once; denied, the
    model reads the person's reason."""
    charges = tmp_path / "effects.jsonl"
    db = str(tmp_path / "ledger.db")
    cmd = gateway_cmd(db, "--run", "run-f", upstream=payments_cmd(charges, approval_over=500))
    agent, err = stdio_agent(cmd, tmp_path, "gateway")
    with err:
        async with agent:
            asked = await agent.call("charge", ARGS, timeout_s=10)
            text = result_text(asked)
            assert asked.is_error and text.startswith("oncely: ") and "approv" in text, dump(asked)
            key = result_meta(asked)["oncely/key"]
            # Polling: the same request, nothing charged, one entry waiting.
            again = await agent.call("charge", reask(ARGS), timeout_s=10)
            assert again.is_error and result_meta(again)["oncely/key"] == key, dump(again)
            [waiting] = ledger_json(db, "list", "--scope", "mcp", "--state", "awaiting-approval")
            assert waiting["key"] == key and effects(charges) == []
            r = harness.oncely(
                "ledger", "approve", "--db", db, "--scope", "mcp", key,
                "--version", str(waiting["version"]), "--by", "ops",
            )  # fmt: skip
            assert r.returncode == 0, r.stderr
            paid = await agent.call("charge", ARGS, timeout_s=10)
            assert charge_of(paid)["amount_cents"] == ARGS["amount_cents"]
            replayed = await agent.call("charge", ARGS, timeout_s=10)
            assert result_meta(replayed).get("oncely/replayed") is True, dump(replayed)
            # Another charge, denied: the model reads the reason; nothing is charged.
            other = {**ARGS, "customer": "cus_2"}
            refused = await agent.call("charge", other, timeout_s=10)
            key2 = result_meta(refused)["oncely/key"]
            shown = ledger_json(db, "show", "--scope", "mcp", key2)
            r = harness.oncely(
                "ledger", "deny", "--db", db, "--scope", "mcp", key2,
                "--version", str(shown["version"]), "--by", "ops", "--note", "customer on hold",
            )  # fmt: skip
            assert r.returncode == 0, r.stderr
            denied = await agent.call("charge", other, timeout_s=10)
            assert denied.is_error and "customer on hold" in result_text(denied), dump(denied)
    got = effects(charges)
    report("f. charge over 500, approved then another denied", "gateway", len(got), "charges")
    assert len(got) == 1, got


# --- f. approval asked through MCP elicitation ----------------------------------------------

# The exact arguments a person approves, as the form shows them: canonical JSON, without the
# members the charge's key ignores (the memo).
ARGS_CANONICAL = '{"amount_cents":1000,"customer":"cus_1"}'


class Person:
    """The agent's user behind an elicitation callback: answers each form with `answer`
    (`{"action": …, "content": …}`), after `hold` is set when one is given; keeps each message."""

    def __init__(self, action: str, content: dict[str, Any] | None = None) -> None:
        self.action, self.content = action, content
        self.messages: list[str] = []
        self.hold: anyio.Event | None = None

    async def __call__(self, context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult

        self.messages.append(params.message)
        schema = params.requested_schema
        assert schema["required"] == ["approve"], schema
        assert set(schema["properties"]) == {"approve", "reason"}, schema
        if self.hold is not None:
            await self.hold.wait()
        return ElicitResult(action=self.action, content=self.content)


# How the agent's client connects: the `initialize` handshake of 2025-11-25 (the gateway sends
# `elicitation/create`), or protocol 2026-07-28, which has no requests from server to client (the
# gateway answers with an InputRequiredResult; the SDK's client asks its callback and calls again).
MODES = pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])


async def elicited_agent(
    tmp: Path, db: str, charges: Path, person: Person, mode: str
) -> tuple[Agent, Any]:
    cmd = gateway_cmd(db, "--run", "run-f", upstream=payments_cmd(charges, approval_over=500))
    return stdio_agent(cmd, tmp, "gateway", elicitation=person, client_name="desk", mode=mode)


def assert_protocol(agent: Agent, mode: str) -> None:
    got = agent.client.protocol_version
    assert (got == "2026-07-28") == (mode == "2026-07-28"), f"{mode}: negotiated {got}"


def decisions(db: str, key: str) -> list[dict[str, Any]]:
    """A person's decisions on the entry, from its history."""
    history = ledger_json(db, "show", "--scope", "mcp", key)["history"]
    return [h for h in history if h["state"] in ("approved", "denied")]


@MODES
async def test_f_approval_elicited_approved(
    tmp_path: Path, procs: Any, oncely: Path, mode: str
) -> None:
    """The agent's client takes elicitation: the gateway asks its user (`elicitation/create`, or
    on 2026-07-28 an InputRequiredResult), showing the tool and its exact arguments; approved,
    the same call charges once and returns the charge. The ledger names who decided: `mcp:` and
    the client's name."""
    charges = tmp_path / "effects.jsonl"
    db = str(tmp_path / "ledger.db")
    person = Person("accept", {"approve": True, "reason": "looks right"})
    agent, err = await elicited_agent(tmp_path, db, charges, person, mode)
    with err:
        async with agent:
            assert_protocol(agent, mode)
            paid = await agent.call("charge", ARGS, timeout_s=20)
            assert charge_of(paid)["amount_cents"] == ARGS["amount_cents"], dump(paid)
            key = result_meta(paid)["oncely/key"]
            [message] = person.messages
            assert '"charge"' in message and ARGS_CANONICAL in message, message
            replayed = await agent.call("charge", reask(ARGS), timeout_s=20)
            assert result_meta(replayed).get("oncely/replayed") is True, dump(replayed)
            assert len(person.messages) == 1, person.messages
    shown = ledger_json(db, "show", "--scope", "mcp", key)
    assert shown["state"] == "done", shown
    [decided] = decisions(db, key)
    assert decided["resolved_by"] == "mcp:desk" and "looks right" in decided["reason"], decided
    got = effects(charges)
    report(f"f. approval by elicitation, approved ({mode})", "gateway", len(got), "charges")
    assert len(got) == 1, got


@MODES
async def test_f_approval_elicited_denied(
    tmp_path: Path, procs: Any, oncely: Path, mode: str
) -> None:
    """The user says no with a reason (the form accepted with `approve: false`): nothing is
    charged and the model reads the reason; a declined form denies too, with a default
    reason naming the client."""
    charges = tmp_path / "effects.jsonl"
    db = str(tmp_path / "ledger.db")
    person = Person("accept", {"approve": False, "reason": "customer on hold"})
    agent, err = await elicited_agent(tmp_path, db, charges, person, mode)
    with err:
        async with agent:
            assert_protocol(agent, mode)
            denied = await agent.call("charge", ARGS, timeout_s=20)
            assert denied.is_error and "customer on hold" in result_text(denied), dump(denied)
            key = result_meta(denied)["oncely/key"]
            again = await agent.call("charge", ARGS, timeout_s=20)
            assert again.is_error and "customer on hold" in result_text(again), dump(again)
            assert len(person.messages) == 1, person.messages
            person.action, person.content = "decline", None
            other = {**ARGS, "customer": "cus_2"}
            declined = await agent.call("charge", other, timeout_s=20)
            assert declined.is_error and "declined by desk" in result_text(declined), dump(declined)
    [decided] = decisions(db, key)
    assert decided["resolved_by"] == "mcp:desk", decided
    assert ledger_json(db, "show", "--scope", "mcp", key)["state"] == "denied"
    got = effects(charges)
    report(f"f. approval by elicitation, denied ({mode})", "gateway", len(got), "charges")
    assert got == [], got


@MODES
async def test_f_approval_elicited_cancelled(
    tmp_path: Path, procs: Any, oncely: Path, mode: str
) -> None:
    """The user dismisses the form: no decision, the pollable "awaiting approval" answer; a
    person approving with the CLI afterwards still works."""
    charges = tmp_path / "effects.jsonl"
    db = str(tmp_path / "ledger.db")
    person = Person("cancel")
    agent, err = await elicited_agent(tmp_path, db, charges, person, mode)
    with err:
        async with agent:
            assert_protocol(agent, mode)
            asked = await agent.call("charge", ARGS, timeout_s=20)
            assert asked.is_error and "approv" in result_text(asked), dump(asked)
            key = result_meta(asked)["oncely/key"]
            [waiting] = ledger_json(db, "list", "--scope", "mcp", "--state", "awaiting-approval")
            assert waiting["key"] == key and effects(charges) == []
            r = harness.oncely(
                "ledger", "approve", "--db", db, "--scope", "mcp", key,
                "--version", str(waiting["version"]), "--by", "ops",
            )  # fmt: skip
            assert r.returncode == 0, r.stderr
            paid = await agent.call("charge", ARGS, timeout_s=20)
            assert charge_of(paid)["amount_cents"] == ARGS["amount_cents"], dump(paid)
            assert len(person.messages) == 1, person.messages
    [decided] = decisions(db, key)
    assert decided["resolved_by"] == "ops", decided
    got = effects(charges)
    report(f"f. approval by elicitation, cancelled ({mode})", "gateway", len(got), "charges")
    assert len(got) == 1, got


@MODES
async def test_f_approval_elicited_once_per_key(
    tmp_path: Path, procs: Any, oncely: Path, mode: str
) -> None:
    """Two calls of the same intent at once: the user is asked once; the other call gets the
    pollable answer while the form is open. Approved, the next call replays the one charge."""
    charges = tmp_path / "effects.jsonl"
    db = str(tmp_path / "ledger.db")
    person = Person("accept", {"approve": True})
    person.hold = anyio.Event()
    agent, err = await elicited_agent(tmp_path, db, charges, person, mode)
    results: list[Any] = []
    with err:
        async with agent:
            assert_protocol(agent, mode)

            async def first() -> None:
                results.append(await agent.call("charge", ARGS, timeout_s=30))

            async with anyio.create_task_group() as tg:
                tg.start_soon(first)
                await await_for(lambda: person.messages, EFFECT_S, "the form")
                second = await agent.call("charge", reask(ARGS), timeout_s=20)
                assert second.is_error and "approv" in result_text(second), dump(second)
                person.hold.set()
            [paid] = results
            assert charge_of(paid)["amount_cents"] == ARGS["amount_cents"], dump(paid)
            replayed = await agent.call("charge", reask(ARGS), timeout_s=20)
            assert result_meta(replayed).get("oncely/replayed") is True, dump(replayed)
            assert len(person.messages) == 1, person.messages
    got = effects(charges)
    report(f"f. approval asked once for two calls at once ({mode})", "gateway", len(got), "charges")
    assert len(got) == 1, got


async def test_f_approval_input_required_by_hand(tmp_path: Path, procs: Any, oncely: Path) -> None:
    """Protocol 2026-07-28, one leg at a time: the gateway answers the call with an
    InputRequiredResult (its form under `inputRequests["oncely/approval"]`, a `requestState`
    naming key and version) — not `elicitation/create`, which that version does not have; while
    it is out, the same call gets the pollable answer; a state naming another key decides
    nothing; the call again with the answer and the state charges once."""
    from mcp_types import ElicitResult, InputRequiredResult

    charges = tmp_path / "effects.jsonl"
    db = str(tmp_path / "ledger.db")
    person = Person("accept", {"approve": True})
    agent, err = await elicited_agent(tmp_path, db, charges, person, "2026-07-28")
    with err:
        async with agent:
            session = agent.client.session
            first = await session.call_tool("charge", ARGS, allow_input_required=True)
            assert isinstance(first, InputRequiredResult), dump(first)
            raw = dump(first)
            key = raw["_meta"]["oncely/key"]
            asked = raw["inputRequests"]["oncely/approval"]
            assert asked["method"] == "elicitation/create", raw
            assert ARGS_CANONICAL in asked["params"]["message"], raw
            state = first.request_state
            assert state and state.startswith("oncely/approval:") and key in state, raw
            waiting = await session.call_tool("charge", reask(ARGS), allow_input_required=True)
            assert not isinstance(waiting, InputRequiredResult), dump(waiting)
            assert waiting.is_error and "approv" in result_text(waiting), dump(waiting)
            yes = {"oncely/approval": ElicitResult(action="accept", content={"approve": True})}
            forged = await session.call_tool(
                "charge",
                ARGS,
                input_responses=yes,
                request_state="oncely/approval:v1:1:oncely1:another",
                allow_input_required=True,
            )
            assert not isinstance(forged, InputRequiredResult) and forged.is_error, dump(forged)
            assert effects(charges) == []
            paid = await session.call_tool(
                "charge", ARGS, input_responses=yes, request_state=state, allow_input_required=True
            )
            assert not isinstance(paid, InputRequiredResult), dump(paid)
            assert charge_of(paid)["amount_cents"] == ARGS["amount_cents"], dump(paid)
    assert person.messages == [], "the SDK's callback was not involved"
    [decided] = decisions(db, key)
    assert decided["resolved_by"] == "mcp:desk", decided
    assert len(effects(charges)) == 1
