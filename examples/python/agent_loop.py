"""An agent loop without an LLM: a scripted model asks for a charge, the payment provider
charges the card but the response times out, and the model — as models do — asks again.

Run it twice in one go:

1. a naive loop that just calls the tool: the customer is charged on every retry;
2. the same loop with the tool decorated by oncely: the timed-out call is recorded as "outcome
   unknown" and reconciled with the provider (never blindly retried), and the model's retry —
   a NEW tool-call id, the same order — gets the first charge back. Charged ONCE.

    python examples/python/agent_loop.py [--db ledger.db]

Exits non-zero if the oncely loop charges more than once.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import oncely


@dataclass
class PaymentProvider:
    """A card processor in trouble: while ``outage`` lasts, each request fails — a charge is
    made but its response times out, a lookup cannot connect (the worst case: nobody can
    tell what happened)."""

    charges: list[dict[str, Any]] = field(default_factory=list)
    outage: int = 0

    def charge(self, order_id: str, amount: int) -> dict[str, Any]:
        receipt = {
            "charge_id": f"ch_{len(self.charges) + 1}",
            "order_id": order_id,
            "amount": amount,
        }
        self.charges.append(receipt)  # the money moves…
        if self.outage:
            self.outage -= 1
            raise TimeoutError("read timed out after 10 s")  # …but the answer is lost
        return receipt

    def find_charge(self, order_id: str) -> dict[str, Any] | None:
        if self.outage:
            self.outage -= 1
            raise ConnectionError("provider unreachable")
        return next((c for c in self.charges if c["order_id"] == order_id), None)


class ScriptedModel:
    """Stands in for the LLM: asks for one charge, and asks again after a tool error, each
    time with a fresh tool-call id (as real models do)."""

    def __init__(self) -> None:
        self.calls = 0

    def next_tool_call(self, last_result: str | None) -> dict[str, Any] | None:
        if last_result is not None and not last_result.startswith("error"):
            return None  # done
        if self.calls >= 3:
            return None  # gives up
        self.calls += 1
        return {
            "id": f"call_{self.calls}",
            "name": "charge",
            "arguments": {"order_id": "order-42", "amount": 1999},
        }


def agent_loop(model: ScriptedModel, tools: dict[str, Any], log: list[str]) -> None:
    """The usual loop: ask the model, call the tool it names, feed the result back."""
    result: str | None = None
    while (call := model.next_tool_call(result)) is not None:
        tool = tools[call["name"]]
        # No step: the tool-call id changes when the model asks again, so it is not part of the
        # key (docs/choosing-keys.md). The same charge asked again in this run is one effect.
        try:
            result = f"ok: {tool(**call['arguments'])}"
        except Exception as e:  # noqa: BLE001 - reported to the model, as agents do
            result = f"error: {type(e).__name__}: {e}"
        log.append(f"  {call['id']} {call['name']}({call['arguments']}) -> {result}")


def naive(provider: PaymentProvider) -> list[str]:
    log: list[str] = []

    def charge(order_id: str, amount: int) -> dict[str, Any]:
        return provider.charge(order_id, amount)

    agent_loop(ScriptedModel(), {"charge": charge}, log)
    return log


def with_oncely(provider: PaymentProvider, ledger: oncely.Ledger) -> list[str]:
    log: list[str] = []

    # Declared next to the tool: an irreversible external effect, keyed by the order (one
    # charge per order per run, whichever tool call asks), reconciled by looking it up.
    @ledger.tool(
        policy={
            "class": "irreversible-external",
            "key": {"only": ["/order_id"], "identity": "run"},
            "reconcile": {"lookup": "find_charge"},
            "reconcileAfterMs": 0,
        }
    )
    def charge(order_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        # A real tool passes idempotency_key on as the provider's Idempotency-Key header.
        return provider.charge(order_id, amount)

    @charge.reconciler
    def find_charge(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
        import json

        try:
            found = provider.find_charge(json.loads(req.args_canonical)["order_id"])
        except ConnectionError as e:
            return oncely.Unknown(str(e))
        return oncely.happened(found) if found else oncely.NotHappened()

    with oncely.context(scope="shop", run="conversation-7"):
        agent_loop(ScriptedModel(), {"charge": charge}, log)
    return log


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="SQLite ledger file (default: a temporary one)")
    args = parser.parse_args()

    print("naive agent loop (the provider's next two requests time out):")
    p1 = PaymentProvider(outage=2)
    print("\n".join(naive(p1)))
    print(f"  => the customer was charged {len(p1.charges)} time(s)\n")

    print("the same loop, tool decorated with oncely:")
    p2 = PaymentProvider(outage=2)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "ledger.db")
        with oncely.Ledger.sqlite(db) as ledger:
            print("\n".join(with_oncely(p2, ledger)))
            [entry] = ledger.list("shop")
            print(f"  ledger: {entry.key} {entry.state.value} (attempt {entry.attempt})")
    print(f"  => the customer was charged {len(p2.charges)} time(s)")

    if len(p2.charges) != 1:
        print("FAIL: oncely let the charge happen more than once", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
