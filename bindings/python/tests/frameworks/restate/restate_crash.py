"""A Restate service whose handler refunds a charge inside ``ctx.run``; in phase ``first`` the
process is killed inside the run, after the provider paid and before Restate journals the run's
result. The test then starts this script again (``resume``) on the same port, and Restate
retries the invocation there.

    python restate_crash.py first|resume WORKDIR PORT [--naive]

Serves the service ``refunds_oncely`` (``refunds_bare`` with ``--naive``) on 127.0.0.1:PORT with
hypercorn. The provider's refunds are kept in WORKDIR/refunds.jsonl, the ledger in
WORKDIR/ledger.db. ``--naive``: the same run calling the provider directly.
"""

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import restate
from hypercorn.asyncio import serve
from hypercorn.config import Config
from payments import REFUND_POLICY, Payments, register_lookup

import oncely
from oncely.engines.restate import run_context


def main() -> None:
    mode, work, port = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    naive = "--naive" in sys.argv
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # paid; the run's result never reaches Restate
        return refund

    service = restate.Service("refunds_bare" if naive else "refunds_oncely")

    if naive:

        def bare_action(charge_id: str, amount: int) -> dict[str, Any]:
            return {"refund": pay(charge_id, amount, None)}

        action = bare_action
    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the retried run finds the dead attempt's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool(policy=policy)
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            return pay(charge_id, amount, idempotency_key)

        def oncely_action(charge_id: str, amount: int) -> dict[str, Any]:
            return {"refund": refund(charge_id, amount), "context": dict(oncely.current_context())}

        action = oncely_action

    @service.handler(name="refund")
    async def refund_handler(ctx: restate.Context, req: dict[str, Any]) -> dict[str, Any]:
        print("handler:", mode, flush=True)
        run = action if naive else run_context(ctx, "refund", scope="acme")(action)
        options: restate.RunOptions[dict[str, Any]] = restate.RunOptions()
        return await ctx.run_typed("refund", run, options, req["charge_id"], req["amount"])

    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    asyncio.run(serve(restate.app(services=[service]), config, mode="asgi"))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
