# scripts/snippets: runs before a README block that calls `payments`, the payment provider's
# client a reader already has. This stand-in refunds once per idempotency key, as a provider does.
from typing import Any


class Payments:
    def __init__(self) -> None:
        self.refunds: dict[str, dict[str, Any]] = {}

    def refund(self, charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
        new = {"refund_id": f"re_{len(self.refunds) + 1}", "charge_id": charge_id, "amount": amount}
        return self.refunds.setdefault(idempotency_key, new)

    def find_refund(self, *, idempotency_key: str) -> dict[str, Any] | None:
        return self.refunds.get(idempotency_key)


payments = Payments()
