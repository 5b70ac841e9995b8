"""An OpenAI Agents SDK run whose conversation is a ``SQLiteSession``, killed inside the refund
tool after the provider paid and run again by a new process on the same session. The SDK saves
a turn's items to the session after the turn, so the killed call's output never reaches it: the
model reads the conversation so far and asks for the refund again (a new call id, the arguments
respelled). Bare it pays twice. Through ``oncely.adapters.openai_agents`` with the run named from
the session (its ``session_id`` as the tool's ``run=``; or, one tool for many sessions,
``RunConfig(group_id=session.session_id)`` per run) the new call finds the dead worker's claim and
settles it by the lookup: paid once.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from agents import Agent, RunConfig, Runner, SQLiteSession
from agents.testing import ScriptedModel, assistant_message, function_call
from compat import record
from payments import REFUND_POLICY, Payments, counted, register_lookup

import oncely
from oncely.adapters.openai_agents import oncely_function_tool

AGENTS: dict[str, str] = {
    "framework": "OpenAI Agents SDK",
    "package": "openai-agents",
    "run": "RunConfig.group_id",
}
RESUMED = "SIGKILL, resumed from its SQLiteSession"


def crash_script(mode: str, work: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    script = Path(__file__).with_name("openai_agents_session_crash.py")
    argv = [sys.executable, str(script), mode, str(work), *flags]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def killed_and_resumed(work: Path, *flags: str) -> str:
    first = crash_script("first", work, *flags)
    assert first.returncode == -signal.SIGKILL, first.stderr
    assert len(Payments(work / "refunds.jsonl").refunds) == 1  # paid before the kill
    resumed = crash_script("resume", work, *flags)
    assert resumed.returncode == 0, resumed.stderr
    # The session kept the first run's input; the killed call's output never reached it.
    assert 'session before: ["user"]' in resumed.stdout
    assert "final output: Refunded." in resumed.stdout
    return resumed.stdout


def test_a_session_run_killed_mid_tool_and_resumed_pays_once(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"agents session killed mid-tool and resumed, oncely: paid {len(refunds)} time(s)")
    record(**AGENTS, story="kill-resume", paid=len(refunds), bare=False, how=RESUMED)
    assert len(refunds) == 1
    assert "refunds: 1" in out
    assert '"refund_id": "re_1"' in out  # the new call got the first refund back
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]
    assert entry.run_id == "session-7"  # the session id, given as run=


def test_without_oncely_the_resumed_session_pays_again(tmp_path: Path) -> None:
    out = killed_and_resumed(tmp_path, "--naive")
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"agents session killed mid-tool and resumed, no oncely: paid {len(refunds)} time(s)")
    record(**AGENTS, story="kill-resume", paid=len(refunds), bare=True, how=RESUMED)
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- in one process: two sessions, one tool: each run's group_id is its session ----------------


def test_each_session_is_a_run_of_its_own(tmp_path: Path) -> None:
    payments = Payments()
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        register_lookup(ledger, payments)

        @ledger.tool("refund", policy=REFUND_POLICY)
        async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            """Refund part of a charge."""
            return payments.refund(charge_id, amount, idempotency_key)

        tool = oncely_function_tool(refund, scope="acme")

        async def turn(session: SQLiteSession, call_id: str) -> Any:
            asked = function_call("refund", {"charge_id": "ch_1", "amount": 500}, call_id=call_id)
            model = ScriptedModel([[asked], [assistant_message("Refunded.")]])
            agent = Agent(name="support", model=model, tools=[tool])
            config = RunConfig(group_id=session.session_id, tracing_disabled=True)
            said = "refund $5 of ch_1"
            result = await Runner.run(agent, said, session=session, run_config=config)
            return [i.output for i in result.new_items if i.type == "tool_call_output_item"]

        async def story() -> None:
            a = SQLiteSession("session-a", tmp_path / "sessions.db")
            b = SQLiteSession("session-b", tmp_path / "sessions.db")
            first = await turn(a, "call_1")
            assert await turn(a, "call_2") == first  # the same session asks again: replayed
            assert (await turn(b, "call_3"))[0]["refund_id"] == "re_2"  # another session
            assert len(await a.get_items()) == 2 * 4  # user, call, output, answer per turn

        asyncio.run(story())
        assert len(payments.refunds) == 2
        assert sorted(e.run_id for e in ledger.list("acme")) == ["session-a", "session-b"]
