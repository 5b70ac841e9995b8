"""End to end: this project's client side (oncely.adapters.http, a tool whose policy reconciles
``provider-idempotent``) against this project's provider side (the ASGI middleware in uvicorn),
sharing ONE SQLite ledger file under two scopes. The client's first call times out while the
provider's handler still runs; the client's entry goes in doubt; its reconciliation sends the
same Idempotency-Key again and gets 409 (still running: read as unknown) and then the replay.
The handler ran once and the client ends with the real result: a provider-idempotent
reconciliation is then actually safe."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from harness import WAIT_S, Proc, effects, uvicorn

import oncely
from oncely.adapters.http import request

CLIENT_POLICY = {
    "class": "irreversible-external",
    "reconcile": "provider-idempotent",
    "reconcileAfterMs": 100,
}


@pytest.fixture
def provider(tmp_path: Path) -> Iterator[tuple[Proc, Path]]:
    (tmp_path / "gates").mkdir()
    env = {
        "ONCELY_APP": "starlette",
        "ONCELY_LEDGER": str(tmp_path / "shared.db"),
        "ONCELY_EFFECTS": str(tmp_path / "effects.jsonl"),
        "ONCELY_GATES": str(tmp_path / "gates"),
    }
    proc = uvicorn("provider_app:app", tmp_path, env, name="provider")
    try:
        yield proc, tmp_path
    finally:
        proc.stop()
        print(proc.output())


def test_a_provider_idempotent_reconciliation_against_our_provider_is_safe(
    provider: tuple[Proc, Path],
) -> None:
    proc, tmp = provider
    ledger = oncely.Ledger.sqlite(tmp / "shared.db", owner="agent")
    client = httpx.Client(base_url=proc.url)
    sent: list[str] = []

    @ledger.tool(policy=CLIENT_POLICY)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> Any:
        sent.append(idempotency_key)
        r = request(
            client,
            "POST",
            f"/refunds/{charge_id}",
            json={"amount": amount},
            key=idempotency_key,
            timeout=0.5,
            headers={"x-test-delay": "2"},  # the handler answers after 2 s; not in the key
        )
        return r.json()

    outcomes: list[str] = []
    deadline = time.monotonic() + WAIT_S
    with oncely.context(scope="agent-7", run="conversation-1", step="refund-1"):
        key = refund.key("ch_1", 500)
        while True:
            try:
                result = refund.effect("ch_1", 500)
                break
            except (oncely.InDoubtError, oncely.InProgressError) as e:
                outcomes.append(type(e).__name__)
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
    client.close()
    done = effects(tmp / "effects.jsonl")
    assert len(done) == 1, done  # the provider's handler ran once
    assert done[0]["client_key"] == key  # the client's ledger key was the Idempotency-Key
    assert result.value == {"id": "re_1", "charge": "ch_1", "amount": 500}
    assert result.reconciled or outcomes  # reached through reconciliation, not a fresh answer
    assert len(sent) >= 2 and set(sent) == {key}  # re-sent, always with the same key
    mine = ledger.get("agent-7", key)
    assert mine is not None and mine.state is oncely.EntryState.DONE
    # The provider's own entry, in the same file under its scope: done, the handler's response.
    [theirs] = ledger.list("acct_1")
    assert theirs.state is oncely.EntryState.DONE and theirs.tool == "POST /refunds/{charge}"
    history = [h.state for h in ledger.history("agent-7", key)]
    assert oncely.EntryState.IN_DOUBT in history  # the client's entry was in doubt on the way
    ledger.close()
