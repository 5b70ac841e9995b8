"""Replaying ``tests/vectors/ledger.json``: building each step's event, describing an outcome
the way the vectors do, and checking a step's expectations."""

from __future__ import annotations

from typing import Any

import oncely
from oncely import (
    Approve,
    Approved,
    Ask,
    Asked,
    AwaitingApproval,
    ClaimToken,
    Complete,
    Completion,
    Conflict,
    Decision,
    Denied,
    Deny,
    Escalation,
    Event,
    Execute,
    FailAmbiguous,
    FailDefinite,
    Failure,
    Happened,
    Heartbeat,
    HeldDecision,
    Idle,
    InProgress,
    NotHappened,
    Outcome,
    PassThrough,
    Purge,
    Purged,
    Reconciled,
    ReconcileRequest,
    Reconciliation,
    Recorded,
    Replay,
    Resolution,
    Resolve,
    Settled,
    Sweep,
    Unknown,
)


def token(body: dict[str, Any]) -> ClaimToken:
    return ClaimToken(body["attempt"], body["owner"])


def claim_for(scenario: dict[str, Any], owner: str, args: str | None = None) -> oncely.Claim:
    """The claim of the scenario's intent (its args replaced when a step gives some), built
    by the core's ``prepare`` through a ledger-less call."""
    from oncely import _runtime
    from oncely._values import Err

    i = scenario["intent"]
    intent = oncely.Intent(i["scope"], i["run"], i["step"], i["tool"], args or i["args"])
    r = _runtime.shared().call(
        "ledger.prepare", intent, oncely.parse_policy(scenario["policy"]), owner
    )
    assert not isinstance(r, Err), r
    return r  # type: ignore[no-any-return]


def event(scenario: dict[str, Any], step: dict[str, Any]) -> tuple[Event, oncely.Claim | None]:
    """The event a step describes (and the claim, for ``begin``)."""
    ev = step["event"]
    if isinstance(ev, str):
        return {"sweep": Sweep(), "purge": Purge()}[ev], None
    ((name, body),) = ev.items()
    if name in ("begin", "ask"):
        claim = claim_for(scenario, body["owner"], body.get("args"))
        return (oncely.Begin(claim) if name == "begin" else Ask(claim)), claim
    if name == "heartbeat":
        return Heartbeat(token(body)), None
    if name == "complete":
        return Complete(Completion(token(body), body["result"])), None
    if name == "fail_definite":
        return FailDefinite(Failure(token(body), body["reason"])), None
    if name == "fail_ambiguous":
        return FailAmbiguous(Failure(token(body), body["reason"])), None
    if name == "reconciled":
        verdict: oncely.ReconcileVerdict
        if "happened" in body:
            verdict = Happened(body["happened"])
        elif "not_happened" in body:
            verdict = NotHappened()
        else:
            verdict = Unknown(body["unknown"])
        return Reconciled(Reconciliation(body["attempt"], verdict)), None
    if name == "resolve":
        settlement: oncely.Settlement = (
            Happened(body["happened"]) if "happened" in body else NotHappened()
        )
        resolution = Resolution(settlement, body["by"], body["note"], body["version"])
        return Resolve(resolution), None
    if name in ("approve", "deny"):
        decision = Decision(body["by"], body["note"], body["version"])
        return (Approve(decision) if name == "approve" else Deny(decision)), None
    raise AssertionError(f"unknown event {name}")


def decision_json(d: HeldDecision | None) -> Any:
    """What ``ledger.decision-of`` says, as the vectors write it (a step's
    ``expect.decision``)."""
    if d is None:
        return None
    if isinstance(d, Asked):
        return "asked"
    if isinstance(d, Approved):
        return {"approved": {"by": d.approval.by, "unused": d.approval.unused}}
    return {"denied": {"by": d.denial.by, "reason": d.denial.reason}}


def describe(o: Outcome) -> dict[str, Any]:
    """An outcome as the vectors write it."""
    if isinstance(o, Execute):
        return {"outcome": "execute", "attempt": o.token.attempt, "owner": o.token.owner}
    if isinstance(o, Replay):
        return {"outcome": "replay", "result": o.result_json, "attempt": o.attempt}
    if isinstance(o, InProgress):
        return {
            "outcome": "in-progress",
            "owner": o.owner,
            "in_state": o.state.value,
            "retry_after_ms": o.retry_after_ms,
        }
    if isinstance(o, ReconcileRequest):
        return {"outcome": "reconcile", "attempt": o.attempt, "escalate_at": o.escalate_at}
    if isinstance(o, Escalation):
        return {"outcome": "escalated", "attempt": o.attempt}
    if isinstance(o, Conflict):
        return {"outcome": "conflict", "pointer": o.pointer}
    if isinstance(o, PassThrough):
        return {"outcome": "pass-through"}
    if isinstance(o, Recorded):
        return {"outcome": "recorded", "state": o.state.value}
    if isinstance(o, Settled):
        return {"outcome": "settled", "id": o.id}
    if isinstance(o, Purged):
        return {"outcome": "purged"}
    if isinstance(o, Idle):
        return {"outcome": "idle", "next": o.next}
    if isinstance(o, AwaitingApproval):
        return {"outcome": "awaiting-approval", "args": o.approval_request.args_canonical}
    if isinstance(o, Denied):
        return {"outcome": "denied", "by": o.denial.by, "reason": o.denial.reason}
    raise AssertionError(f"unknown outcome {o!r}")


OUTCOME_FIELDS = {"outcome", "attempt", "owner", "result", "in_state", "retry_after_ms",
                  "escalate_at", "pointer", "next", "id", "args", "by", "reason"}  # fmt: skip
ENTRY_FIELDS = {"state", "version", "error", "decision"}


def check_outcome(where: str, o: Outcome, want: dict[str, Any]) -> None:
    """Every outcome field the step expects is there and equal; no other outcome kind."""
    assert "error" not in want, f"{where}: expected the error {want['error']}, got {o!r}"
    got = describe(o)
    expected = {k: v for k, v in want.items() if k not in ENTRY_FIELDS}
    assert set(expected) <= OUTCOME_FIELDS, f"{where}: unknown expectation {set(expected)}"
    for k, v in expected.items():
        assert k in got, f"{where}: the outcome {got} has no {k}"
        assert got[k] == v, f"{where}: {k} of {got}: expected {v!r}"


def check_error(where: str, err: oncely.LedgerError, want: dict[str, Any]) -> None:
    assert want.get("error") == err.kind.value, f"{where}: unexpected error {err!r}"
