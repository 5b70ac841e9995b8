# scripts/snippets: runs before a README block that settles an entry: `ledger`, and the `key` of
# an escalated refund (its reply was lost, and only a person can reconcile it).
import oncely

ledger = oncely.Ledger.sqlite("ledger.db")


def lost_reply(key: str) -> dict[str, str]:
    raise TimeoutError("the provider's reply was lost")


try:
    ledger.run(lost_reply, scope="acme", run="run-7", tool="refund", args={"charge_id": "ch_1"},
               policy={"class": "irreversible-external", "reconcile": "manual"})  # fmt: skip
    raise AssertionError("a lost reply with manual reconciliation escalates")
except oncely.EscalatedError as e:
    key = e.key
