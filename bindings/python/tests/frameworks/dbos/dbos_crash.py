"""A DBOS workflow whose process is killed inside its refund step, after the provider paid, and
a second process whose ``DBOS.launch()`` recovers the workflow and re-executes the step.

    python dbos_crash.py first|resume WORKDIR [--naive] [--system-db URL --schema NAME]

``first``: starts workflow ``refund-7`` (charge ch_1, 500); its step pays and the process is
killed (SIGKILL: DBOS has not recorded the step's output, the ledger's claim stays pending).
``resume``: a new process launches DBOS, which recovers the PENDING workflow and re-executes the
step; waits for the workflow's result. Prints the result and the provider's refunds.
``--naive``: the same step calling the provider directly. ``--system-db``: DBOS's system
database (default: SQLite in WORKDIR), ``--schema`` its schema there (PostgreSQL).
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from dbos import DBOS, DBOSConfig, SetWorkflowID
from payments import REFUND_POLICY, Payments, register_lookup

import oncely
from oncely.engines.dbos import step_context

WORKFLOW_ID = "refund-7"


def main() -> int:
    mode, work, naive = sys.argv[1], Path(sys.argv[2]), "--naive" in sys.argv
    config: DBOSConfig = {
        "name": "oncely-refunds",
        "system_database_url": f"sqlite:///{work / 'dbos.sqlite'}",
    }
    if "--system-db" in sys.argv:
        config["system_database_url"] = sys.argv[sys.argv.index("--system-db") + 1]
        config["dbos_system_schema"] = sys.argv[sys.argv.index("--schema") + 1]
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if mode == "first":
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: DBOS never records the output
        return refund

    if naive:

        @DBOS.step()
        def refund_step(charge_id: str, amount: int) -> dict[str, Any]:
            return pay(charge_id, amount, None)

    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the recovered step finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool(policy=policy)
        def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            return pay(charge_id, amount, idempotency_key)

        @DBOS.step()
        @step_context(scope="acme")
        def refund_step(charge_id: str, amount: int) -> dict[str, Any]:
            result: dict[str, Any] = refund(charge_id, amount)
            return result

    @DBOS.workflow()
    def refund_workflow(charge_id: str, amount: int) -> dict[str, Any]:
        return refund_step(charge_id, amount)

    DBOS(config=config)
    DBOS.launch()  # recovers this executor's PENDING workflows (the resumed process's)
    try:
        if mode == "first":
            with SetWorkflowID(WORKFLOW_ID):
                refund_workflow("ch_1", 500)
            return 3  # not reached: killed in the step
        result = DBOS.retrieve_workflow(WORKFLOW_ID).get_result()
        print("result:", json.dumps(result, sort_keys=True))
        print("refunds:", len(payments.refunds))
        return 0
    finally:
        DBOS.destroy()


if __name__ == "__main__":
    sys.exit(main())
