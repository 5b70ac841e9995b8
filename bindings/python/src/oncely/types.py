"""Typed mirrors of the core's WIT records, enums and variants (``wit/*.wit``).

Every class here is plain data. Field order and names follow the WIT declarations (kebab-case
becomes snake_case; the field ``class`` becomes ``class_``), and :mod:`oncely._codec` checks them
against the component's own type information when the component is loaded, so a change to the
WIT that these classes do not follow fails loudly at import instead of misreading values.

Enums are ``str`` enums whose values are the WIT names (``EntryState.IN_DOUBT == "in-doubt"``).
A WIT variant is a union of small case classes, one per case, so that ``match`` works::

    match outcome:
        case Execute(token): ...
        case Replay(result_json=text): ...
        case InProgress(owner=owner): ...

The error records of the WIT (``canon-error``, ``key-error``, ``policy-error``,
``ledger-error``) are exceptions; see :mod:`oncely.errors`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Union


class WitEnum(str, Enum):
    """Base of the WIT enums: a ``str`` whose value is the WIT case name."""

    def __str__(self) -> str:
        return str(self.value)


# --- canonical ------------------------------------------------------------------------------


class CanonErrorKind(WitEnum):
    """Why a document was rejected by canonicalization (``canonical.canon-error-kind``)."""

    SYNTAX = "syntax"
    INVALID_UTF8 = "invalid-utf8"
    LONE_SURROGATE = "lone-surrogate"
    DUPLICATE_KEY = "duplicate-key"
    NUMBER_OVERFLOW = "number-overflow"
    INEXACT_INTEGER = "inexact-integer"
    TOO_DEEP = "too-deep"
    TOO_LARGE = "too-large"


# --- keys -----------------------------------------------------------------------------------


class KeyIdentity(WitEnum):
    """Which identifiers besides the arguments make a call distinct (``keys.key-identity``)."""

    STEP = "step"
    RUN = "run"
    SCOPE = "scope"


@dataclass(frozen=True, slots=True)
class KeySpec:
    """Which parts of an intent the key is made of (``keys.key-spec``)."""

    only: list[str] | None
    ignore: list[str]
    identity: KeyIdentity


@dataclass(frozen=True, slots=True)
class Intent:
    """What an agent meant to do (``keys.intent``); ``args_json`` is JSON text."""

    scope: str
    run_id: str
    step_id: str
    tool: str
    args_json: str


@dataclass(frozen=True, slots=True)
class DerivedKey:
    """A derived key and what it was derived from (``keys.derived-key``)."""

    key: str
    """``oncely1:`` followed by 64 lowercase hex digits."""
    preimage: str
    """The exact bytes that were hashed."""
    fingerprint: str
    """SHA-256 (hex) of ``args_canonical``."""
    args_canonical: str
    """The canonical arguments with the ignored members removed."""


class KeyErrorKind(WitEnum):
    """Why a key could not be derived (``keys.key-error-kind``)."""

    INVALID_ARGS = "invalid-args"
    INVALID_POINTER = "invalid-pointer"
    MISSING_MEMBER = "missing-member"
    POINTER_INTO_ARRAY = "pointer-into-array"
    EMPTY_FIELD = "empty-field"


class IntentPart(WitEnum):
    """A part of an intent (``keys.intent-part``)."""

    SCOPE = "scope"
    TOOL = "tool"
    RUN_ID = "run-id"
    STEP_ID = "step-id"
    ARGS = "args"


class DifferenceEffect(WitEnum):
    """What a difference between two intents does (``keys.difference-effect``)."""

    KEY = "key"
    FINGERPRINT = "fingerprint"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Difference:
    """One way in which two intents differ (``keys.difference``)."""

    part: IntentPart
    pointer: str | None
    a: str | None
    b: str | None
    effect: DifferenceEffect


class Verdict(WitEnum):
    """The overall answer of :func:`oncely.explain` (``keys.verdict``)."""

    SAME_INTENT = "same-intent"
    CONFLICT = "conflict"
    DIFFERENT_KEYS = "different-keys"


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why two intents do or don't share a key (``keys.explanation``)."""

    verdict: Verdict
    key_a: DerivedKey
    key_b: DerivedKey
    differences: list[Difference]


# --- policy ---------------------------------------------------------------------------------


class EffectClass(WitEnum):
    """What a call of the tool does to the world (``policy.effect-class``)."""

    READ_ONLY = "read-only"
    OVERWRITING_WRITE = "overwriting-write"
    ACCUMULATING_WRITE = "accumulating-write"
    IRREVERSIBLE_EXTERNAL = "irreversible-external"


@dataclass(frozen=True, slots=True)
class ReconcileNone:
    """``reconcile-path.none``: no way to reconcile; an in-doubt call can only be escalated."""


@dataclass(frozen=True, slots=True)
class ProviderIdempotent:
    """``reconcile-path.provider-idempotent``: send the same call again with the same key."""


@dataclass(frozen=True, slots=True)
class Lookup:
    """``reconcile-path.lookup``: ask the named read-only tool whether the effect happened."""

    tool: str


@dataclass(frozen=True, slots=True)
class Manual:
    """``reconcile-path.manual``: only a human can tell."""


ReconcilePath = Union[ReconcileNone, ProviderIdempotent, Lookup, Manual]
"""How an unknown outcome of a tool is found out (``policy.reconcile-path``)."""


@dataclass(frozen=True, slots=True)
class ToolPolicy:
    """How one tool is guarded (``policy.tool-policy``). Build it with
    :func:`oncely.parse_policy`."""

    class_: EffectClass
    key: KeySpec | None
    reconcile: ReconcilePath
    lease_ms: int
    max_call_ms: int
    reconcile_after_ms: int
    escalate_after_ms: int
    retention_ms: int


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """MCP ``ToolAnnotations`` hints (``policy.tool-annotations``); ``None`` means not given."""

    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None


class ClassSource(WitEnum):
    """Where a resolved tool's class came from (``policy.class-source``)."""

    POLICY = "policy"
    ANNOTATIONS = "annotations"
    DEFAULTS = "defaults"


@dataclass(frozen=True, slots=True)
class ResolvedTool:
    """A tool of a manifest with its effective policy (``policy.resolved-tool``)."""

    name: str
    policy: ToolPolicy
    class_source: ClassSource


class Severity(WitEnum):
    """How serious a finding is (``policy.severity``)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding of :func:`oncely.check_tools` (``policy.finding``)."""

    severity: Severity
    tool: str | None
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class ManifestReport:
    """The result of :func:`oncely.check_tools` (``policy.manifest-report``)."""

    passed: bool
    tools: list[ResolvedTool]
    findings: list[Finding]


# --- ledger ---------------------------------------------------------------------------------


class EntryState(WitEnum):
    """The state of a ledger entry (``ledger.entry-state``)."""

    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    IN_DOUBT = "in-doubt"
    ESCALATED = "escalated"


@dataclass(frozen=True, slots=True)
class ClaimToken:
    """Proof that the holder's attempt is the current one (``ledger.claim-token``)."""

    attempt: int
    owner: str


@dataclass(frozen=True, slots=True)
class Entry:
    """One row of the ledger (``ledger.entry``). Hosts store every field unchanged."""

    scope: str
    key: str
    tool: str
    run_id: str
    """The run of the claim that holds (or last held) the entry, for people: the key is derived
    from it, but another run may share the key (a natural key, or no step). A new attempt
    records its own claim's. Empty in rows written before oncely kept it."""
    step_id: str
    """The step of that claim, for people (empty likewise)."""
    fingerprint: str
    args_canonical: str
    state: EntryState
    version: int
    attempt: int
    owner: str
    created_at: int
    updated_at: int
    lease_until: int
    in_doubt_since: int | None
    next_reconcile_at: int | None
    reconcile_attempts: int
    result_json: str | None
    reason: str | None
    resolved_by: str | None
    settlement: str | None
    """The id of a human's settlement (``stl-`` and 16 hex digits, given by the core on
    ``resolve``); ``None`` otherwise, and again once a new attempt starts."""
    reconcile: ReconcilePath
    lease_ms: int
    max_call_ms: int
    reconcile_after_ms: int
    escalate_after_ms: int
    retention_ms: int
    due_at: int | None


@dataclass(frozen=True, slots=True)
class Claim:
    """What ``begin`` asks for; built by the core's ``prepare`` (``ledger.claim``)."""

    scope: str
    tool: str
    run_id: str
    """The intent's run (recorded on the entry, for people)."""
    step_id: str
    """The intent's step (recorded on the entry, for people)."""
    key: str
    fingerprint: str
    args_canonical: str
    owner: str
    policy: ToolPolicy


@dataclass(frozen=True, slots=True)
class Completion:
    """A result reported by the attempt that executed (``ledger.completion``)."""

    token: ClaimToken
    result_json: str


@dataclass(frozen=True, slots=True)
class Failure:
    """A failure reported by the attempt that executed (``ledger.failure``)."""

    token: ClaimToken
    reason: str


@dataclass(frozen=True, slots=True)
class Happened:
    """The effect happened; ``result_json`` is its result (verdict or settlement case)."""

    result_json: str


@dataclass(frozen=True, slots=True)
class NotHappened:
    """The effect did not happen: a new attempt may execute (verdict or settlement case)."""


@dataclass(frozen=True, slots=True)
class Unknown:
    """Still unknown (the provider could not tell, or could not be reached): why."""

    reason: str


ReconcileVerdict = Union[Happened, NotHappened, Unknown]
"""What a reconciler found out (``ledger.reconcile-verdict``)."""

Settlement = Union[Happened, NotHappened]
"""A human's verdict (``ledger.settlement``)."""


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """A reconciler's answer about one attempt (``ledger.reconciliation``)."""

    attempt: int
    verdict: ReconcileVerdict


@dataclass(frozen=True, slots=True)
class Resolution:
    """A human settling an entry (``ledger.resolution``). ``seen_version`` is the entry's
    version the person decided on: the core refuses the settlement (``changed``) if the entry
    has moved since."""

    settlement: Settlement
    by: str
    note: str
    seen_version: int


@dataclass(frozen=True, slots=True)
class Begin:
    """``event.begin``: claim the key before calling the tool."""

    claim: Claim


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """``event.heartbeat``: extend the lease of a pending claim."""

    token: ClaimToken


@dataclass(frozen=True, slots=True)
class Complete:
    """``event.complete``: the tool returned a result."""

    completion: Completion


@dataclass(frozen=True, slots=True)
class FailDefinite:
    """``event.fail-definite``: the tool definitely failed; the effect did not happen."""

    failure: Failure


@dataclass(frozen=True, slots=True)
class FailAmbiguous:
    """``event.fail-ambiguous``: the outcome is unknown (timeout, dropped connection, crash)."""

    failure: Failure


@dataclass(frozen=True, slots=True)
class Sweep:
    """``event.sweep``: time passed."""


@dataclass(frozen=True, slots=True)
class Reconciled:
    """``event.reconciled``: a reconciler's answer."""

    reconciliation: Reconciliation


@dataclass(frozen=True, slots=True)
class Resolve:
    """``event.resolve``: a human's verdict."""

    resolution: Resolution


@dataclass(frozen=True, slots=True)
class Purge:
    """``event.purge``: delete a settled entry whose retention has passed."""


@dataclass(frozen=True, slots=True)
class CompleteUnrecordable:
    """``event.complete-unrecordable``: the tool returned a value that cannot be recorded."""

    failure: Failure


Event = Union[
    Begin,
    Heartbeat,
    Complete,
    FailDefinite,
    FailAmbiguous,
    Sweep,
    Reconciled,
    Resolve,
    Purge,
    CompleteUnrecordable,
]
"""Everything that can happen to an entry (``ledger.event``)."""


@dataclass(frozen=True, slots=True)
class Execute:
    """``outcome.execute``: the claim is granted; call the tool with the key."""

    token: ClaimToken


@dataclass(frozen=True, slots=True)
class Replay:
    """``outcome.replay`` (``ledger.replay``): return the recorded result; do not call the tool."""

    result_json: str
    attempt: int
    recorded_at: int


@dataclass(frozen=True, slots=True)
class InProgress:
    """``outcome.in-progress`` (``ledger.in-progress``): someone else is working on this key."""

    owner: str
    state: EntryState
    retry_after_ms: int


@dataclass(frozen=True, slots=True)
class ReconcileRequest:
    """``outcome.reconcile`` (``ledger.reconcile-request``): find out if an attempt happened."""

    scope: str
    key: str
    tool: str
    args_canonical: str
    attempt: int
    path: ReconcilePath
    in_doubt_since: int
    escalate_at: int


@dataclass(frozen=True, slots=True)
class Escalation:
    """``outcome.escalated`` (``ledger.escalation``): only a human can settle it now."""

    scope: str
    key: str
    tool: str
    attempt: int
    reason: str
    in_doubt_since: int


@dataclass(frozen=True, slots=True)
class Conflict:
    """``outcome.conflict`` (``ledger.conflict``): the key was used with other parameters."""

    key: str
    pointer: str
    stored_fingerprint: str
    given_fingerprint: str


@dataclass(frozen=True, slots=True)
class PassThrough:
    """``outcome.pass-through``: the class needs no ledger; call the tool."""


@dataclass(frozen=True, slots=True)
class Recorded:
    """``outcome.recorded``: the event was recorded; the entry is now in ``state``."""

    state: EntryState


@dataclass(frozen=True, slots=True)
class Settled:
    """``outcome.settled``: a human's settlement was recorded under ``id`` (``stl-…``); the
    entry is now done or failed, as the verdict said."""

    id: str


@dataclass(frozen=True, slots=True)
class Purged:
    """``outcome.purged``: the entry was deleted."""


@dataclass(frozen=True, slots=True)
class Idle:
    """``outcome.idle``: nothing to do now; when a sweep may next find work (``None``: never)."""

    next: int | None


Outcome = Union[
    Execute,
    Replay,
    InProgress,
    ReconcileRequest,
    Escalation,
    Conflict,
    PassThrough,
    Recorded,
    Settled,
    Purged,
    Idle,
]
"""What the host must do after applying the write (``ledger.outcome``)."""


class LedgerErrorKind(WitEnum):
    """Why an event was refused (``ledger.ledger-error-kind``)."""

    NOT_FOUND = "not-found"
    STALE_TOKEN = "stale-token"
    INVALID_STATE = "invalid-state"
    ALREADY_SETTLED = "already-settled"
    RETENTION_NOT_REACHED = "retention-not-reached"
    INVALID_REQUEST = "invalid-request"
    CHANGED = "changed"


# --- effect (wit/effect.wit: the machines a host interprets) -------------------------------


class TendJob(WitEnum):
    """Time-driven work on a due row (``effect.tend-job``)."""

    SWEEP = "sweep"
    PURGE = "purge"


class WriteOp(WitEnum):
    """How to write a row (``effect.write-op``)."""

    INSERT = "insert"
    UPDATE = "update"
    DELETE = "delete"


class VerdictKind(WitEnum):
    """A reconciler's answer, without its payload (``effect.verdict-kind``)."""

    HAPPENED = "happened"
    NOT_HAPPENED = "not-happened"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class EffectOptions:
    """How one effect runs (``effect.effect-options``)."""

    owner: str
    max_attempts: int
    wait_ms: int
    has_reconciler: bool


@dataclass(frozen=True, slots=True)
class ReadRequest:
    """A row to read (``effect.read-request``)."""

    scope: str
    key: str


@dataclass(frozen=True, slots=True)
class RowWrite:
    """A row to write atomically (``effect.row-write``)."""

    op: WriteOp
    row: Entry
    expected_version: int


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """How a tool call failed (``effect.tool-failure``); also ``input.tool-failed``."""

    definite: bool
    reason: str


@dataclass(frozen=True, slots=True)
class EffectStart:
    """``command.effect`` (``effect.effect-start``)."""

    intent: Intent
    policy: ToolPolicy
    options: EffectOptions


@dataclass(frozen=True, slots=True)
class EventStart:
    """``command.event`` (``effect.event-start``)."""

    scope: str
    key: str
    event: Event


@dataclass(frozen=True, slots=True)
class TendStart:
    """``command.tend`` (``effect.tend-start``)."""

    scope: str
    key: str
    job: TendJob
    has_reconciler: bool


@dataclass(frozen=True, slots=True)
class WaitStart:
    """``command.wait`` (``effect.wait-start``)."""

    scope: str
    key: str
    every_ms: int
    timeout_ms: int


Command = Union[EffectStart, EventStart, TendStart, WaitStart]
"""Which machine to start (``effect.command``)."""


@dataclass(frozen=True, slots=True)
class Busy:
    """Another worker holds the claim (``effect.busy``)."""

    key: str
    owner: str
    state: EntryState
    retry_after_ms: int
    """When to look again (ms): until the lease ends, or the next reconciliation is due."""


@dataclass(frozen=True, slots=True)
class Keyed:
    """The key and why (``effect.keyed``)."""

    key: str
    reason: str


@dataclass(frozen=True, slots=True)
class ToolValue:
    """``result-source.tool-value``: return the tool's own value."""


@dataclass(frozen=True, slots=True)
class RecordedResult:
    """``result-source.recorded``: a recorded result, as JSON text."""

    json: str


@dataclass(frozen=True, slots=True)
class EffectReturn:
    """``finish.effect`` (``effect.effect-result``)."""

    key: str
    source: ToolValue | RecordedResult
    replayed: bool
    reconciled: bool


@dataclass(frozen=True, slots=True)
class TendNote:
    """``finish.tended`` (``effect.tend-note``): what tending one row did."""

    scope: str
    key: str
    tool: str
    lease_expired: bool
    reconciled: VerdictKind | None
    escalated: str | None
    purged: bool
    skipped: str | None


@dataclass(frozen=True, slots=True)
class EventDone:
    """``finish.event``: the event's outcome."""

    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Waited:
    """``finish.waited``: return the row read last."""


Finish = Union[EffectReturn, EventDone, TendNote, Waited]
"""What a machine returns (``effect.finish``)."""


@dataclass(frozen=True, slots=True)
class ErrConflict:
    """``effect-error.conflict``."""

    conflict: Conflict


@dataclass(frozen=True, slots=True)
class ErrInProgress:
    """``effect-error.in-progress``."""

    busy: Busy


@dataclass(frozen=True, slots=True)
class ErrInDoubt:
    """``effect-error.in-doubt``."""

    keyed: Keyed


@dataclass(frozen=True, slots=True)
class ErrEscalated:
    """``effect-error.escalated``."""

    keyed: Keyed


@dataclass(frozen=True, slots=True)
class ErrToolFailed:
    """``effect-error.tool-failed``."""

    reason: str


@dataclass(frozen=True, slots=True)
class ErrResultNotRecorded:
    """``effect-error.result-not-recorded``."""

    keyed: Keyed


@dataclass(frozen=True, slots=True)
class ErrStorage:
    """``effect-error.storage``."""

    reason: str


@dataclass(frozen=True, slots=True)
class ErrLedger:
    """``effect-error.ledger`` (the payload is a :class:`~oncely.LedgerError`)."""

    error: Exception


@dataclass(frozen=True, slots=True)
class ErrContention:
    """``effect-error.contention``."""

    races: int


EffectError = Union[
    ErrConflict,
    ErrInProgress,
    ErrInDoubt,
    ErrEscalated,
    ErrToolFailed,
    ErrResultNotRecorded,
    ErrStorage,
    ErrLedger,
    ErrContention,
]
"""Why a machine ends without a result (``effect.effect-error``)."""


@dataclass(frozen=True, slots=True)
class Report:
    """``action.report``: send what the read or write gave."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """``action.call-tool`` (``effect.tool-call``): call the tool, unless the clock is at or
    past ``not_after``; give it the key, attempt and deadline; heartbeat every
    ``heartbeat_ms`` while it runs."""

    scope: str
    key: str
    token: ClaimToken | None
    not_after: int | None
    deadline: int | None
    heartbeat_ms: int | None


CallTool = ToolCall


@dataclass(frozen=True, slots=True)
class CallReconciler:
    """``action.call-reconciler``: call the registered reconciler."""

    request: ReconcileRequest


@dataclass(frozen=True, slots=True)
class RecallTool:
    """``action.recall-tool``: call the tool again with this key, as reconciliation."""

    key: str


@dataclass(frozen=True, slots=True)
class SleepUntil:
    """``action.sleep-until``: sleep until this time (ms), then send ``woke``."""

    at: int


@dataclass(frozen=True, slots=True)
class FinishAction:
    """``action.finish``: done, return this."""

    finish: Finish


@dataclass(frozen=True, slots=True)
class RaiseAction:
    """``action.raise``: done, raise this."""

    error: EffectError


Action = Union[Report, CallTool, CallReconciler, RecallTool, SleepUntil, FinishAction, RaiseAction]
"""What the host must do (``effect.action``)."""


class NoticeKind(WitEnum):
    """The kind of a decision of the core (``effect.notice-kind``); the same names as
    :class:`oncely.EventKind`."""

    CLAIMED = "claimed"
    EXECUTED = "executed"
    REPLAYED = "replayed"
    CONFLICT = "conflict"
    IN_DOUBT = "in-doubt"
    RECONCILED = "reconciled"
    ESCALATED = "escalated"
    RESOLVED = "resolved"


@dataclass(frozen=True, slots=True)
class Notice:
    """One decision of the core, for the host to deliver (``effect.notice``)."""

    kind: NoticeKind
    scope: str
    key: str
    tool: str
    detail: str


@dataclass(frozen=True, slots=True)
class Step:
    """The next step of a machine (``effect.step``)."""

    state: bytes
    read: ReadRequest | None
    write: RowWrite | None
    events: list[Notice]
    """Deliver them once the read found no row and the write applied, before the action."""
    action: Action


@dataclass(frozen=True, slots=True)
class Start:
    """``input.start``."""

    command: Command


@dataclass(frozen=True, slots=True)
class RowInput:
    """``input.row``: the row read (``None``: absent)."""

    row: Entry | None


@dataclass(frozen=True, slots=True)
class Written:
    """``input.written``."""


@dataclass(frozen=True, slots=True)
class LostRace:
    """``input.lost-race``."""


@dataclass(frozen=True, slots=True)
class StoreFailed:
    """``input.store-failed``."""

    reason: str


@dataclass(frozen=True, slots=True)
class ToolReturned:
    """``input.tool-returned``: the tool's value as JSON text."""

    json: str


@dataclass(frozen=True, slots=True)
class ToolUnencodable:
    """``input.tool-unencodable``: why the value cannot be encoded."""

    reason: str


@dataclass(frozen=True, slots=True)
class VerdictInput:
    """``input.verdict``: the reconciler's answer."""

    verdict: ReconcileVerdict


@dataclass(frozen=True, slots=True)
class Woke:
    """``input.woke``."""


@dataclass(frozen=True, slots=True)
class TooLate:
    """``input.too-late``: the tool was not called, its claim's lease had run out."""


Input = Union[
    Start,
    RowInput,
    Written,
    LostRace,
    StoreFailed,
    ToolReturned,
    ToolUnencodable,
    ToolFailure,
    VerdictInput,
    Woke,
    TooLate,
]
"""What happened when the host did the last action (``effect.input``)."""


# --- provider (wit/provider.wit: a server honouring its clients' keys) -------------------------


@dataclass(frozen=True, slots=True)
class Operation:
    """A route or an MCP tool as a middleware was configured for it (``provider.operation``):
    its ``tool`` name (the route template or the MCP tool's name), its policy JSON (``""``: the
    default) and whether a request without a key is refused."""

    tool: str
    policy_json: str
    required: bool


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """An HTTP request as received (``provider.http-request``)."""

    method: str
    path: str
    query: str
    content_type: str
    body: bytes
    keys: list[str]


@dataclass(frozen=True, slots=True)
class McpCall:
    """An MCP ``tools/call`` as received (``provider.mcp-call``)."""

    arguments_json: str
    meta_json: str
    params_key: str | None


ProviderRequest = Union[HttpRequest, McpCall]
"""What arrived (``provider.request``)."""


@dataclass(frozen=True, slots=True)
class KeyedCall:
    """A keyed request (``provider.keyed-call``): run it through the effect machine with this
    intent and policy."""

    client_key: str
    key: str
    intent: Intent
    policy: ToolPolicy


@dataclass(frozen=True, slots=True)
class Refusal:
    """A request answered without running the handler, or an error after it
    (``provider.refusal``)."""

    status: int
    kind: str
    title: str
    detail: str
    pointer: str | None
    part: str | None
    retry_after_s: int | None
    problem_json: str


@dataclass(frozen=True, slots=True)
class Pass:
    """``admission.pass``: call the handler as if there were no middleware."""


Admission = Union[Pass, KeyedCall, Refusal]
"""What to do with a request (``provider.admission``)."""


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """An HTTP response (``provider.http-response``): header names in any case, in order."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


@dataclass(frozen=True, slots=True)
class Returned:
    """``recording.returned``: record this JSON text and replay it to every repeat."""

    json: str


@dataclass(frozen=True, slots=True)
class Unrecordable:
    """``recording.unrecordable``: it took effect, but cannot be recorded (why)."""

    reason: str


Recording = Union[Returned, ToolFailure, Unrecordable]
"""What a handler's response means for the ledger (``provider.recording``)."""


@dataclass(frozen=True, slots=True)
class HandlerAnswer:
    """``answer.handler``: send the handler's own answer of this run."""


Answer = Union[HandlerAnswer, Refusal]
"""What to answer after a run raised an effect error (``provider.answer``)."""


# Variant case tables: WIT case name -> Python class (read by the codec).
VARIANTS: tuple[dict[str, type], ...] = (
    {
        "none": ReconcileNone,
        "provider-idempotent": ProviderIdempotent,
        "lookup": Lookup,
        "manual": Manual,
    },
    {"happened": Happened, "not-happened": NotHappened, "unknown": Unknown},
    {"happened": Happened, "not-happened": NotHappened},
    {
        "begin": Begin,
        "heartbeat": Heartbeat,
        "complete": Complete,
        "fail-definite": FailDefinite,
        "fail-ambiguous": FailAmbiguous,
        "sweep": Sweep,
        "reconciled": Reconciled,
        "resolve": Resolve,
        "purge": Purge,
        "complete-unrecordable": CompleteUnrecordable,
    },
    {
        "execute": Execute,
        "replay": Replay,
        "in-progress": InProgress,
        "reconcile": ReconcileRequest,
        "escalated": Escalation,
        "conflict": Conflict,
        "pass-through": PassThrough,
        "recorded": Recorded,
        "settled": Settled,
        "purged": Purged,
        "idle": Idle,
    },
    {"effect": EffectStart, "event": EventStart, "tend": TendStart, "wait": WaitStart},
    {"tool-value": ToolValue, "recorded": RecordedResult},
    {"effect": EffectReturn, "event": EventDone, "tended": TendNote, "waited": Waited},
    {
        "conflict": ErrConflict,
        "in-progress": ErrInProgress,
        "in-doubt": ErrInDoubt,
        "escalated": ErrEscalated,
        "tool-failed": ErrToolFailed,
        "result-not-recorded": ErrResultNotRecorded,
        "storage": ErrStorage,
        "ledger": ErrLedger,
        "contention": ErrContention,
    },
    {
        "report": Report,
        "call-tool": ToolCall,
        "call-reconciler": CallReconciler,
        "recall-tool": RecallTool,
        "sleep-until": SleepUntil,
        "finish": FinishAction,
        "raise": RaiseAction,
    },
    {
        "start": Start,
        "row": RowInput,
        "written": Written,
        "lost-race": LostRace,
        "store-failed": StoreFailed,
        "tool-returned": ToolReturned,
        "tool-unencodable": ToolUnencodable,
        "tool-failed": ToolFailure,
        "too-late": TooLate,
        "verdict": VerdictInput,
        "woke": Woke,
    },
    {"http": HttpRequest, "mcp": McpCall},
    {"pass": Pass, "keyed": KeyedCall, "refuse": Refusal},
    {"returned": Returned, "failed": ToolFailure, "unrecordable": Unrecordable},
    {"handler": HandlerAnswer, "refuse": Refusal},
)

ENUMS: tuple[type[WitEnum], ...] = (
    CanonErrorKind,
    KeyIdentity,
    KeyErrorKind,
    IntentPart,
    DifferenceEffect,
    Verdict,
    EffectClass,
    ClassSource,
    Severity,
    EntryState,
    LedgerErrorKind,
    TendJob,
    WriteOp,
    VerdictKind,
    NoticeKind,
)

RECORDS: tuple[type, ...] = (
    KeySpec,
    Intent,
    DerivedKey,
    Difference,
    Explanation,
    ToolPolicy,
    ToolAnnotations,
    ResolvedTool,
    Finding,
    ManifestReport,
    ClaimToken,
    Entry,
    Claim,
    Completion,
    Failure,
    Reconciliation,
    Resolution,
    Replay,
    InProgress,
    ReconcileRequest,
    Escalation,
    Conflict,
    EffectOptions,
    ReadRequest,
    RowWrite,
    ToolCall,
    ToolFailure,
    EffectStart,
    EventStart,
    TendStart,
    WaitStart,
    Busy,
    Keyed,
    EffectReturn,
    TendNote,
    Notice,
    Step,
    Operation,
    HttpRequest,
    McpCall,
    KeyedCall,
    Refusal,
    HttpResponse,
)

__all__ = [
    "Begin",
    "CanonErrorKind",
    "Claim",
    "ClaimToken",
    "ClassSource",
    "Complete",
    "CompleteUnrecordable",
    "Completion",
    "Conflict",
    "DerivedKey",
    "Difference",
    "DifferenceEffect",
    "EffectClass",
    "Entry",
    "EntryState",
    "Escalation",
    "TendJob",
    "TendNote",
    "Event",
    "Execute",
    "Explanation",
    "FailAmbiguous",
    "FailDefinite",
    "Failure",
    "Finding",
    "Happened",
    "Heartbeat",
    "Idle",
    "InProgress",
    "Intent",
    "IntentPart",
    "KeyErrorKind",
    "KeyIdentity",
    "KeySpec",
    "LedgerErrorKind",
    "Lookup",
    "Manual",
    "ManifestReport",
    "NotHappened",
    "Outcome",
    "PassThrough",
    "ProviderIdempotent",
    "Purge",
    "Purged",
    "ReconcileNone",
    "ReconcilePath",
    "ReconcileRequest",
    "ReconcileVerdict",
    "Reconciled",
    "Reconciliation",
    "Recorded",
    "Replay",
    "Resolution",
    "Resolve",
    "ResolvedTool",
    "Settlement",
    "Settled",
    "Severity",
    "Sweep",
    "ToolAnnotations",
    "ToolPolicy",
    "Unknown",
    "Verdict",
    "WitEnum",
]
