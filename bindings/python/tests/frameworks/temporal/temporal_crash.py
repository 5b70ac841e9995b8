"""A Temporal worker for the end-to-end tests: the refund workflow and its refund activity.

    python temporal_crash.py TARGET WORKDIR [--naive] [--crash]

Polls task queue ``refunds`` of the server at TARGET until it is terminated. The workflow
(``RefundWorkflow``) runs one activity, ``refund_activity``, with a short start-to-close
timeout and retries. ``--crash``: the activity's process is killed (SIGKILL) right after the
provider paid, so the attempt never completes and the server retries the activity when its
timeout passes, on whichever worker polls then. ``--naive``: the activity calls the provider
directly instead of through the oncely tool.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from payments import REFUND_POLICY, Payments, register_lookup
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

import oncely
from oncely.engines.temporal import activity_context

TASK_QUEUE = "refunds"


@workflow.defn(name="RefundWorkflow")
class RefundWorkflow:
    @workflow.run
    async def run(self, charge_id: str, amount: int) -> dict[str, Any]:
        result: dict[str, Any] = await workflow.execute_activity(
            "refund_activity",
            args=[charge_id, amount],
            start_to_close_timeout=timedelta(seconds=2),
            retry_policy=RetryPolicy(initial_interval=timedelta(milliseconds=100)),
        )
        return result


async def main() -> int:
    target, work = sys.argv[1], Path(sys.argv[2])
    naive, crash = "--naive" in sys.argv, "--crash" in sys.argv
    payments = Payments(work / "refunds.jsonl")

    def pay(charge_id: str, amount: int, key: str | None) -> dict[str, Any]:
        refund = payments.refund(charge_id, amount, key)
        if crash:
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies: the attempt never completes
        return refund

    if naive:

        @activity.defn(name="refund_activity")
        async def refund_activity(charge_id: str, amount: int) -> dict[str, Any]:
            return pay(charge_id, amount, None)

    else:
        ledger = oncely.Ledger.sqlite(work / "ledger.db")
        register_lookup(ledger, payments)
        # A short lease, so that the retried attempt finds the dead worker's claim expired soon.
        policy = {**REFUND_POLICY, "leaseMs": 300}

        @ledger.tool(policy=policy)
        async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict[str, Any]:
            return pay(charge_id, amount, idempotency_key)

        @activity.defn(name="refund_activity")
        @activity_context(scope="acme")
        async def refund_activity(charge_id: str, amount: int) -> dict[str, Any]:
            result: dict[str, Any] = await refund(charge_id, amount)
            return result

    client = await Client.connect(target)
    worker = Worker(
        client,
        task_queue=TASK_QUEUE,
        workflows=[RefundWorkflow],
        activities=[refund_activity],
        workflow_runner=UnsandboxedWorkflowRunner(),
        max_cached_workflows=0,  # no sticky queue: the next worker gets the workflow at once
    )
    print("polling", flush=True)
    await worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
