"""A payment provider for the adapter tests, and the refund tool's policy and reconciler.

The provider does NOT deduplicate: every refund request it receives is paid (the worst case,
and a common one). It records the idempotency key it was sent with each refund, so a lookup
can find a refund by key. It can lose responses (the refund is paid, the answer times out) and
be unreachable for lookups. With a ``path``, refunds are kept in a JSON-lines file, so that a
process that is killed and one that resumes see the same provider.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import oncely

COUNTS: list[str] = []
"""What each scenario made the provider do, printed at the end of the run (conftest.py)."""


def counted(line: str) -> None:
    """Report a provider's execution count (``line``) in the run's summary."""
    print(line)
    COUNTS.append(line)


# The refund tool's policy: an irreversible external effect, reconciled by looking the refund up
# (the provider does not deduplicate, so "provider-idempotent" would be wrong here). The key is
# every argument; the adapters key it by run (no step).
REFUND_POLICY: dict[str, Any] = {
    "class": "irreversible-external",
    "reconcile": {"lookup": "find_refund"},
    "reconcileAfterMs": 0,
}


class Payments:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._refunds: list[dict[str, Any]] = []
        self.lose_responses = 0
        """The next N refunds are paid, then their responses time out."""
        self.outage = 0
        """The next N lookups cannot connect."""

    @property
    def refunds(self) -> list[dict[str, Any]]:
        """Every refund paid, in order."""
        if self.path is None:
            return list(self._refunds)
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line]

    def refund(self, charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = {
            "refund_id": f"re_{len(self.refunds) + 1}",
            "charge_id": charge_id,
            "amount": amount,
            "idempotency_key": key,
        }
        if self.path is None:
            self._refunds.append(refund)
        else:
            with self.path.open("a") as f:
                f.write(json.dumps(refund) + "\n")
                f.flush()
        if self.lose_responses:
            self.lose_responses -= 1
            raise TimeoutError("read timed out")  # paid, but the answer is lost
        return refund

    def find(self, key: str) -> dict[str, Any] | None:
        if self.outage:
            self.outage -= 1
            raise ConnectionError("provider unreachable")
        return next((r for r in self.refunds if r["idempotency_key"] == key), None)


def register_lookup(ledger: oncely.Ledger, payments: Payments, tool: str = "refund") -> None:
    """Reconcile ``tool`` by looking its refund up by key."""

    def find_refund(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
        try:
            found = payments.find(req.key)
        except ConnectionError as e:
            return oncely.Unknown(str(e))
        return oncely.happened(found) if found else oncely.NotHappened()

    ledger.reconciler(tool, find_refund)
