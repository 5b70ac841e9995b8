"""What every framework adapter shares: which intent a tool call is, the ledger call, the audit
record and the answers the model reads. No framework is imported here.

Identity and answers are the core's (``agent.identify`` and ``agent.answer``, the same for every
host: docs/choosing-keys.md, docs/mcp.md "Identity"). An adapter only gathers what it knows:

- scope: ``oncely.context(scope=...)``, else the adapter's ``scope`` (the core: else
  ``"default"``);
- run: ``oncely.context(run=...)``, else the adapter's ``run`` (a string, or a function of the
  framework's call context); the core: else the framework's conversation (LangGraph's thread id,
  the Agents SDK's group id), else refused (:class:`~oncely.IdentityError`, a
  :class:`LookupError`) unless the key is natural (``identity: scope``);
- step: ``oncely.context(step=...)``, else the adapter's ``step`` function, else none. With no
  step, the core keys a policy of identity ``step`` (the default) by ``run``: the same tool with
  the same arguments in the same run is one effect. A natural key is kept as declared.

The tool-call id the model gives is recorded (:class:`CallRecord`) and never keyed: a model that
re-asks gets a new one.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from oncely import _api
from oncely._machine import EffectResult, effect_error_of
from oncely.errors import (
    CanonError,
    DeniedError,
    KeyDerivationError,
    LedgerError,
)
from oncely.ledger import Ledger
from oncely.tool import Tool, current_context
from oncely.types import (
    ApprovalRequest,
    CallFailure,
    Canon,
    Denied,
    Effect,
    ErrDenied,
    Key,
    LedgerErrorKind,
    Reply,
    ToolPolicy,
)

C = TypeVar("C")

log = logging.getLogger("oncely.adapters")

PolicyLike = str | Mapping[str, Any] | ToolPolicy


@dataclass(frozen=True)
class CallRecord:
    """One tool call through an adapter, for audit: given to the adapter's ``audit`` function
    and logged (logger ``oncely.adapters``, level INFO)."""

    tool: str
    scope: str
    run: str
    step: str | None
    """The step the call was keyed with; ``None``: keyed by run (the default)."""
    tool_call_id: str | None
    """The model's id for this call (recorded, never part of the key)."""
    key: str | None
    """The idempotency key (``None`` when the call failed before one was derived)."""
    outcome: str
    """``executed`` (the tool ran now), ``replayed`` (the recorded result was returned),
    ``reconciled`` (an unknown outcome was settled now), or the name of the oncely error that
    stopped the call (``InDoubtError``, ``ConflictError``, …)."""


def reply_for(error: BaseException) -> Reply | None:
    """The core's answer (``agent.answer``) to an exception oncely raised for a call: the reply
    (``code``, ``text``, ``key``, ``pointer``, ``retry_after_ms``, ``repeatable``), or ``None``
    for an error that is not about the call (storage, the ledger, a bug). The exceptions of the
    effect machine keep the core's ``effect-error`` they were made from; a
    :class:`~oncely.KeyDerivationError` or :class:`~oncely.CanonError` is the core's record."""
    effect = effect_error_of(error)
    failure: CallFailure
    if effect is not None:
        failure = Effect(effect)
    elif isinstance(error, KeyDerivationError):
        failure = Key(error)
    elif isinstance(error, CanonError):
        failure = Canon(error)
    else:
        return None
    return _api.answer(failure)


def answer_for(error: BaseException) -> str | None:
    """What the model reads when a keyed call does not simply return: the text of the core's
    reply (:func:`reply_for`; the same sentences as the MCP gateway's, each starting with
    ``oncely:``), or ``None`` for an error that is not about the call (storage, the ledger, a
    bug): that one propagates. An unknown outcome is never answered with "try again"."""
    reply = reply_for(error)
    return None if reply is None else reply.text


def _named(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"an oncely run or step must be a string, not {type(value).__name__}")
    text = str(value)
    return text or None


@dataclass(frozen=True)
class Identity:
    """Scope, run and step of one call, and the policy it is keyed with."""

    scope: str
    run: str
    step: str | None
    policy: ToolPolicy


class Guard(Generic[C]):
    """A tool's guard: resolves each call's identity and runs it through the ledger. ``C`` is
    the framework's call context (LangChain's RunnableConfig, the Agents SDK's ToolContext)."""

    def __init__(
        self,
        ledger: Ledger,
        *,
        name: str,
        policy: PolicyLike,
        scope: str | None,
        run: str | Callable[[C], str | None] | None,
        step: Callable[[C, str | None], str | None] | None,
        audit: Callable[[CallRecord], None] | None,
        options: Mapping[str, Any],
    ) -> None:
        self.ledger = ledger
        self.name = name
        self.policy = _api.parse_policy(policy)
        self.scope = scope
        self.run = run
        self.step = step
        self.audit = audit
        self.options = dict(options)

    def identity(self, ctx: C, framework_run: str | None, call_id: str | None) -> Identity:
        """The identity of one call, as the core decides it (see the module's docstring).
        Raises :class:`~oncely.IdentityError` (a :class:`LookupError`) when nothing names a run
        and the key needs one."""
        given = current_context()
        run = given.get("run")
        if run is None and self.run is not None:
            run = self.run if isinstance(self.run, str) else _named(self.run(ctx))
        step = given.get("step")
        if step is None and self.step is not None:
            step = _named(self.step(ctx, call_id))
        i, spec = _api.identify_keyed(
            self.policy.key or _api.default_spec(),
            tool=self.name,
            scope=given.get("scope") or self.scope,
            run=run,
            step=step,
            conversation=framework_run,
            effect_class=self.policy.class_,
        )
        policy = dataclasses.replace(self.policy, key=spec)
        return Identity(i.scope, i.run or "", i.step, policy)

    def _record(self, i: Identity, call_id: str | None, key: str | None, outcome: str) -> None:
        rec = CallRecord(self.name, i.scope, i.run, i.step, call_id, key, outcome)
        log.info(
            "%s %s run=%s step=%s tool_call_id=%s key=%s",
            rec.tool, rec.outcome, rec.run, rec.step, rec.tool_call_id, rec.key,
        )  # fmt: skip
        if self.audit is not None:
            self.audit(rec)

    def _done(self, i: Identity, call_id: str | None, r: EffectResult[Any]) -> None:
        outcome = "reconciled" if r.reconciled else "replayed" if r.replayed else "executed"
        self._record(i, call_id, r.key, outcome)

    def _failed(self, i: Identity, call_id: str | None, e: BaseException) -> None:
        if answer_for(e) is not None:
            self._record(i, call_id, getattr(e, "key", None), type(e).__name__)

    def _bare(self, i: Identity, args: Mapping[str, Any]) -> dict[str, Any]:
        """The intent of one call (scope, run, step, tool, arguments, policy)."""
        return {
            "scope": i.scope,
            "run": i.run,
            "step": i.step or "",
            "tool": self.name,
            "args": args,
            "policy": i.policy,
        }

    def _intent(self, i: Identity, args: Mapping[str, Any]) -> dict[str, Any]:
        return {**self._bare(i, args), **self.options}

    def run_sync(
        self, tool_fn: Callable[[str], Any], args: Mapping[str, Any], i: Identity,
        call_id: str | None,
    ) -> EffectResult[Any]:  # fmt: skip
        """Run a synchronous ``tool_fn(key)`` at most once for the intent of ``args``."""
        try:
            r = self.ledger.run(tool_fn, **self._intent(i, args))
        except Exception as e:
            self._failed(i, call_id, e)
            raise
        self._done(i, call_id, r)
        return r

    async def run_async(
        self, tool_fn: Callable[[str], Awaitable[Any]], args: Mapping[str, Any], i: Identity,
        call_id: str | None,
    ) -> EffectResult[Any]:  # fmt: skip
        """Run an async ``tool_fn(key)`` at most once for the intent of ``args``."""
        try:
            r = await self.ledger.aio.run(tool_fn, **self._intent(i, args))
        except Exception as e:
            self._failed(i, call_id, e)
            raise
        self._done(i, call_id, r)
        return r

    # --- approval: the framework's own step and the ledger's record, one decision -----------

    @property
    def gated(self) -> bool:
        """The tool's policy may ask a person to approve a call (its ``approval`` rule)."""
        return self.policy.approval is not None

    def ask(self, args: Mapping[str, Any], i: Identity) -> ApprovalRequest | None:
        """Whether the framework should ask its person about this call, and if so its
        request, recorded in the ledger (``Ledger.request_approval``, the core's ``ask``: claims
        nothing) — the one request of this intended effect, which the inbox lists and a webhook
        announces, so that a person may decide in either place, once: its key, arguments and
        version. ``None`` when the ledger holds a decision (approved, or denied: the call meets
        it) or the policy asks for none."""
        try:
            return self.ledger.request_approval(**self._bare(i, args))
        except DeniedError:
            return None  # the call meets the denial

    def decide(
        self, args: Mapping[str, Any], i: Identity, *, approve: bool, by: str, note: str
    ) -> str | None:
        """Record a decision the framework's person made on this call in the ledger (the
        request recorded first if it is not yet): the decision's id, or ``None`` when the ledger
        already holds a decision (an approval that holds or a denial: the first one stands)."""
        if not by:
            raise ValueError("a decision must say who decided (by)")
        asked = self.ask(args, i)
        if asked is None:
            return None
        decide = self.ledger.approve if approve else self.ledger.deny
        try:
            return decide(asked.scope, asked.key, by=by, version=asked.version, note=note)
        except LedgerError as e:
            if e.kind in (LedgerErrorKind.CHANGED, LedgerErrorKind.INVALID_STATE):
                return None  # decided meanwhile (another person, the inbox): that one stands
            raise

    def denial(self, args: Mapping[str, Any], i: Identity) -> str | None:
        """What the model reads of this call's denial (the core's answer), or ``None`` when the
        ledger holds none."""
        claim = self.ledger.prepare(**self._bare(i, args))
        e = self.ledger.get(claim.scope, claim.key)
        held = None if e is None else self.ledger.decision_of(e)
        if not isinstance(held, Denied):
            return None
        reply = _api.answer(Effect(ErrDenied(held.denial)))
        return None if reply is None else reply.text


def unwrap_tool(
    target: Any, ledger: Ledger | None, policy: PolicyLike | None, name: str | None
) -> tuple[Ledger, ToolPolicy, str, Any, str | None, dict[str, Any]]:
    """``(ledger, policy, name, function, key parameter, effect options)`` of an oncely
    :class:`~oncely.Tool` (made by ``@ledger.tool``) or of a plain function with the ledger and
    policy given. The name is the ledger's (the key's and the reconciler's): an oncely tool's
    own name, else ``name`` or the function's; ``name`` renames only what the model sees."""
    if isinstance(target, Tool):
        return (
            ledger if ledger is not None else _ledger_of(target),
            _api.parse_policy(policy) if policy is not None else target.policy,
            target.name,
            target.fn,
            target.key_param,
            dict(target._options),
        )
    if ledger is None or policy is None:
        raise TypeError(
            "give ledger=... and policy=... (or wrap a tool decorated with @ledger.tool)"
        )
    return ledger, _api.parse_policy(policy), name or target.__name__, target, None, {}


def _ledger_of(tool: Tool[Any]) -> Ledger:
    ledger = as_ledger(tool.ledger)
    assert ledger is not None  # an oncely Tool always has its ledger
    return ledger


def as_ledger(ledger: Any) -> Ledger | None:
    """A :class:`Ledger` from a ``Ledger`` or an ``AsyncLedger`` (``None`` stays ``None``)."""
    if ledger is None or isinstance(ledger, Ledger):
        return ledger
    sync = getattr(ledger, "sync", None)
    if isinstance(sync, Ledger):
        return sync
    raise TypeError(f"not an oncely ledger: {ledger!r}")


__all__ = ["CallRecord", "Guard", "Identity", "answer_for", "as_ledger", "reply_for"]
