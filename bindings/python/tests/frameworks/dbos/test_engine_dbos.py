"""DBOS: a step that calls an oncely tool keyed by the step's own identity (oncely.engines.dbos).

The kill-resume story: the process is killed inside the step after the provider paid; a new
process launches DBOS, which recovers the workflow and re-executes the step. DBOS alone pays
again (it never recorded the step's output); through oncely the re-executed step finds the dead
worker's claim and settles it by looking the refund up: paid once. On SQLite (DBOS's default
system database) always; on PostgreSQL too under scripts/with-postgres.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from compat import record
from dbos import DBOS, SetWorkflowID
from payments import REFUND_POLICY, Payments, counted, register_lookup

import oncely
from oncely.engines import EngineContextError
from oncely.engines.dbos import run_and_step, step_context

DBOS_RUN = "the workflow id (step: the step's function id)"
RESUMED = "SIGKILL, recovered by DBOS.launch() in a new process"


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").lower() not in ("", "0", "false", "no")


def postgres_url() -> str:
    """The throwaway PostgreSQL of scripts/with-postgres; skipped loudly without one (failed
    under ONCELY_REQUIRE_POSTGRES=1 or CI)."""
    url = os.environ.get("ONCELY_TEST_POSTGRES_URL", "")
    if not url:
        reason = "ONCELY_TEST_POSTGRES_URL is not set (run the tests under scripts/with-postgres)"
        if _truthy("ONCELY_REQUIRE_POSTGRES") or _truthy("CI"):
            pytest.fail(f"PostgreSQL is required here: {reason}")
        pytest.skip(f"SKIPPED LOUDLY, the DBOS PostgreSQL story did not run: {reason}")
    return url


def crash_script(mode: str, work: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    script = Path(__file__).with_name("dbos_crash.py")
    argv = [sys.executable, str(script), mode, str(work), *flags]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def killed_and_recovered(work: Path, *flags: str) -> str:
    first = crash_script("first", work, *flags)
    assert first.returncode == -signal.SIGKILL, first.stderr
    assert len(Payments(work / "refunds.jsonl").refunds) == 1  # paid before the kill
    resumed = crash_script("resume", work, *flags)
    assert resumed.returncode == 0, resumed.stderr
    assert "Recovering 1 workflows" in resumed.stderr  # DBOS, not the test, re-ran the step
    return resumed.stdout


@pytest.fixture(params=["sqlite", "postgres"])
def system_db(request: pytest.FixtureRequest) -> list[str]:
    """The flags that put DBOS's system database on SQLite (none) or PostgreSQL."""
    if request.param == "sqlite":
        return []
    return ["--system-db", postgres_url(), "--schema", f"dbos_{secrets.token_hex(6)}"]


def test_a_workflow_killed_in_its_step_and_recovered_pays_once(
    tmp_path: Path, system_db: list[str]
) -> None:
    out = killed_and_recovered(tmp_path, *system_db)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"dbos killed in its step and recovered, oncely: paid {len(refunds)} time(s)")
    record(
        framework="DBOS", package="dbos", run=DBOS_RUN, story="kill-resume", paid=len(refunds),
        bare=False, how=RESUMED, engine=True,
    )  # fmt: skip
    assert len(refunds) == 1
    assert "refunds: 1" in out
    assert '"refund_id": "re_1"' in out  # the re-executed step got the first refund back
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        [entry] = ledger.list("acme")
    assert entry.state is oncely.EntryState.DONE
    assert entry.key == refunds[0]["idempotency_key"]


def test_without_oncely_the_recovered_workflow_pays_again(
    tmp_path: Path, system_db: list[str]
) -> None:
    out = killed_and_recovered(tmp_path, "--naive", *system_db)
    refunds = Payments(tmp_path / "refunds.jsonl").refunds
    counted(f"dbos killed in its step and recovered, no oncely: paid {len(refunds)} time(s)")
    record(
        framework="DBOS", package="dbos", run=DBOS_RUN, story="kill-resume", paid=len(refunds),
        bare=True, how=RESUMED, engine=True,
    )  # fmt: skip
    assert len(refunds) == 2
    assert "refunds: 2" in out


# --- in one process: the identity, a step's retries, two positions ------------------------------


class World:
    ledger: oncely.Ledger
    payments: Payments
    seen: list[tuple[str, str]]
    """(run, step) of each time the tool ran."""
    attempts: list[int | None]
    """DBOS's attempt of each time a step ran (0, then 1 for its retry)."""


W = World()


def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
    return W.payments.refund(charge_id, amount, key)


def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
    W.seen.append(run_and_step())
    return pay(charge_id, amount, idempotency_key)


@DBOS.step(retries_allowed=True, max_attempts=3, interval_seconds=0.01)
@step_context(scope="acme")
def oncely_step(charge_id: str, amount: int) -> dict[str, Any]:
    W.attempts.append(DBOS.step_status.current_attempt if DBOS.step_status else None)
    tool = W.ledger.tool("refund", policy=REFUND_POLICY)(refund)
    result: dict[str, Any] = tool(charge_id, amount)
    return result


@DBOS.step(retries_allowed=True, max_attempts=3, interval_seconds=0.01)
def bare_step(charge_id: str, amount: int) -> dict[str, Any]:
    W.attempts.append(DBOS.step_status.current_attempt if DBOS.step_status else None)
    return pay(charge_id, amount, None)


@DBOS.workflow()
def one_refund(charge_id: str, amount: int, bare: bool) -> dict[str, Any]:
    return (bare_step if bare else oncely_step)(charge_id, amount)


@DBOS.workflow()
def two_installments(charge_id: str, amount: int) -> list[dict[str, Any]]:
    return [oncely_step(charge_id, amount), oncely_step(charge_id, amount)]


@DBOS.workflow()
def identity_in_body() -> tuple[str, str]:
    return run_and_step()


@DBOS.step()
@step_context()
async def async_step() -> dict[str, str]:
    return dict(oncely.current_context())


@DBOS.step()
@step_context(by_step=False)
def run_only_step() -> dict[str, str]:
    return dict(oncely.current_context())


@DBOS.workflow()
def run_only_workflow() -> dict[str, str]:
    return run_only_step()


@DBOS.workflow()
async def async_workflow() -> dict[str, str]:
    await async_step()  # function id 1
    return await async_step()  # function id 2


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    db = tmp_path_factory.mktemp("dbos") / "dbos.sqlite"
    DBOS(config={"name": "oncely-engine-tests", "system_database_url": f"sqlite:///{db}"})
    DBOS.launch()
    yield
    DBOS.destroy()


@pytest.fixture
def world(launched: None, tmp_path: Path) -> Iterator[World]:
    W.payments = Payments()
    W.seen = []
    W.attempts = []
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        W.ledger = ledger
        register_lookup(ledger, W.payments)
        yield W


def test_outside_a_step_the_identity_is_refused(world: World) -> None:
    with pytest.raises(EngineContextError, match="outside any DBOS workflow"):
        run_and_step()
    with pytest.raises(LookupError), step_context():
        pass
    with pytest.raises(EngineContextError, match="in a workflow, not a step"):
        identity_in_body()


def test_a_step_is_keyed_by_its_workflow_id_and_function_id(world: World) -> None:
    with SetWorkflowID("wf-identity"):
        one_refund("ch_1", 500, False)
    assert world.seen == [("wf-identity", "1")]
    [entry] = world.ledger.list("acme")
    with oncely.context(scope="acme", run="wf-identity", step="1"):
        tool = world.ledger.tool("refund", policy=REFUND_POLICY)(refund)
        assert tool.key("ch_1", 500) == entry.key


def test_a_step_retried_after_a_lost_answer_pays_once(world: World) -> None:
    world.payments.lose_responses = 1  # paid, then the answer times out
    world.payments.outage = 1  # and the lookup cannot tell yet: in doubt, DBOS retries the step
    with SetWorkflowID(f"wf-{uuid.uuid4()}"):
        out = one_refund("ch_1", 500, False)
    counted(f"dbos step retried after a lost answer, oncely: paid {len(world.payments.refunds)}")
    assert len(world.payments.refunds) == 1
    assert out["refund_id"] == "re_1"
    assert world.attempts == [0, 1]  # DBOS ran the step again
    assert len(world.seen) == 1  # the retry reconciled by lookup, it did not call the tool


def test_without_oncely_the_retried_step_pays_again(world: World) -> None:
    world.payments.lose_responses = 1
    with SetWorkflowID(f"wf-{uuid.uuid4()}"):
        one_refund("ch_1", 500, True)
    assert world.attempts == [0, 1]
    counted(f"dbos step retried after a lost answer, no oncely: paid {len(world.payments.refunds)}")
    assert len(world.payments.refunds) == 2


def test_the_same_call_at_two_positions_is_two_effects(world: World) -> None:
    wf = f"wf-{uuid.uuid4()}"
    with SetWorkflowID(wf):
        first, second = two_installments("ch_1", 500)
    assert world.seen == [(wf, "1"), (wf, "2")]
    assert len(world.payments.refunds) == 2
    assert first["refund_id"] != second["refund_id"]


def test_an_async_step_gets_the_identity_too(world: World) -> None:
    async def start() -> dict[str, str]:
        with SetWorkflowID("wf-async"):
            return await async_workflow()

    assert asyncio.run(start()) == {"run": "wf-async", "step": "2"}


def test_by_step_false_gives_the_run_only(world: World) -> None:
    with SetWorkflowID("wf-run-only"), oncely.context(scope="acme"):
        assert run_only_workflow() == {"scope": "acme", "run": "wf-run-only"}


def test_another_workflow_is_another_effect(world: World) -> None:
    for wf in ("wf-a", "wf-b"):
        with SetWorkflowID(f"{wf}-{uuid.uuid4()}"):
            one_refund("ch_1", 500, False)
    assert len(world.payments.refunds) == 2
