# scripts/snippets: runs (after payments.py) before a README block that wraps "the @ledger.tool
# above": `ledger` and the `refund` tool of the README's ledger section.
import oncely

ledger = oncely.Ledger.sqlite("ledger.db")


@ledger.tool(
    policy={
        "class": "irreversible-external",
        "key": {"only": ["/charge_id"], "identity": "scope"},
        "reconcile": "provider-idempotent",
    }
)
def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, object]:
    """Refund part of a charge."""
    return payments.refund(charge_id, amount, idempotency_key=idempotency_key)  # noqa: F821
