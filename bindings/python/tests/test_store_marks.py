"""The core marks each write it asks of a store (``row-write``, wit/effect.wit): ``history``
(the write appends to the entry's history) and ``claims`` (it leaves a claim the tool will be
called under: what a store that waits for its replicas, a Redis ``WAIT``, waits for). The store
protocol carries both; the store decides neither."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import oncely
from oncely.store.sqlite import SqliteStore


class Marks:
    """A SQLite store that notes the marks of each write it is asked for."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner = inner
        self.seen: list[tuple[str, str, bool]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def insert(self, e: oncely.Entry, *, claims: bool = False) -> bool:
        self.seen.append(("insert", e.state.value, claims))
        return self.inner.insert(e, claims=claims)

    def update(
        self, expected_version: int, e: oncely.Entry, *, history: bool = False, claims: bool = False
    ) -> bool:
        self.seen.append(("update", e.state.value, claims))
        return self.inner.update(expected_version, e, history=history, claims=claims)


def test_a_claim_is_marked_and_nothing_else_is(tmp_path: Path) -> None:
    store = Marks(SqliteStore(str(tmp_path / "ledger.db")))
    ledger = oncely.Ledger(store, owner="w1")  # type: ignore[arg-type]
    policy = {"class": "irreversible-external", "key": {}, "reconcile": "manual"}
    kw = {"scope": "acme", "run": "r", "tool": "charge", "policy": policy}
    ledger.run(lambda key: {"ok": True}, **kw, args={"n": 1})
    # The claim (pending) waits; the recorded result does not.
    assert store.seen == [("insert", "pending", True), ("update", "done", False)]

    # A call that awaits a person's approval leaves no claim: its request does not wait, and
    # the run after the approval claims (pending) again.
    store.seen.clear()
    asking = {**policy, "approval": "always"}
    with pytest.raises(oncely.AwaitingApprovalError) as asked:
        ledger.run(lambda key: {"ok": True}, **{**kw, "policy": asking}, args={"n": 2})
    assert store.seen == [("insert", "awaiting-approval", False)]
    ledger.approve("acme", asked.value.key, by="desk", version=asked.value.version)
    store.seen.clear()
    ledger.run(lambda key: {"ok": True}, **{**kw, "policy": asking}, args={"n": 2})
    assert ("update", "pending", True) in store.seen, store.seen
    assert [s for s in store.seen if s[2]] == [("update", "pending", True)], store.seen
