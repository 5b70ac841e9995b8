"""Exceptions. The core's typed errors arrive as exceptions that carry every field of the WIT
error record; the ledger's outcomes that stop a call (conflict, escalation, unknown outcome…)
are exceptions of their own. Everything oncely raises derives from :class:`OncelyError`.

Tools signal failures to the ledger by raising :class:`DefiniteFailure` (the provider said no:
the effect did NOT happen) or :class:`AmbiguousFailure` (you cannot tell whether it happened).
"""

from __future__ import annotations

from oncely.types import (
    CanonErrorKind,
    EntryState,
    IdentityErrorKind,
    KeyErrorKind,
    LedgerErrorKind,
)

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import ClassVar


class OncelyError(Exception):
    """Base class of every error oncely raises."""


class CanonError(OncelyError, ValueError):
    """The JSON was refused by canonicalization (``canonical.canon-error``).

    ``kind`` says what is wrong; ``offset`` is the 0-based byte offset of the first offending
    byte in the UTF-8 input, ``line`` and ``column`` its 1-based position (columns count Unicode
    scalar values); ``message`` is the core's sentence for humans.
    """

    _fields: ClassVar[tuple[str, ...]] = ("kind", "offset", "line", "column", "message")

    def __init__(
        self, kind: CanonErrorKind, offset: int, line: int, column: int, message: str
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.offset = offset
        self.line = line
        self.column = column
        self.message = message

    def __repr__(self) -> str:
        return (
            f"CanonError(kind={self.kind.value!r}, offset={self.offset}, line={self.line}, "
            f"column={self.column}, message={self.message!r})"
        )


class KeyDerivationError(OncelyError, ValueError):
    """A key could not be derived (``keys.key-error``).

    ``at`` names the pointer or field concerned, when there is one; ``canon`` carries the
    canonicalization error for ``invalid-args``.
    """

    _fields: ClassVar[tuple[str, ...]] = ("kind", "at", "canon", "message")

    def __init__(
        self, kind: KeyErrorKind, at: str | None, canon: CanonError | None, message: str
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.at = at
        self.canon = canon
        self.message = message

    @property
    def pointer(self) -> str | None:
        """The JSON pointer concerned (same as ``at``), when there is one."""
        return self.at

    def __repr__(self) -> str:
        return (
            f"KeyDerivationError(kind={self.kind.value!r}, at={self.at!r}, canon={self.canon!r}, "
            f"message={self.message!r})"
        )


class PolicyError(OncelyError, ValueError):
    """A policy or tool list could not be read (``policy.policy-error``).

    ``at`` is the JSON pointer (into the document given) of the offending value, ``""`` for the
    root.
    """

    _fields: ClassVar[tuple[str, ...]] = ("at", "message")

    def __init__(self, at: str, message: str) -> None:
        super().__init__(f"policy error at {at!r}: {message}")
        self.at = at
        self.message = message

    @property
    def pointer(self) -> str:
        """The JSON pointer of the offending value (same as ``at``)."""
        return self.at

    def __repr__(self) -> str:
        return f"PolicyError(at={self.at!r}, message={self.message!r})"


class LedgerError(OncelyError):
    """The ledger refused an event (``ledger.ledger-error``); nothing was written.

    ``kind`` says why (stale token, wrong state, ``changed``: a settlement decided on a version
    the entry has since left…); ``state`` is the entry's state, when there is an entry.
    """

    _fields: ClassVar[tuple[str, ...]] = ("kind", "state", "message")

    def __init__(self, kind: LedgerErrorKind, state: EntryState | None, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.state = state
        self.message = message

    def __repr__(self) -> str:
        state = self.state.value if self.state else None
        return f"LedgerError(kind={self.kind.value!r}, state={state!r}, message={self.message!r})"


class IdentityError(OncelyError, LookupError):
    """A tool call has no identity (``agent.identity-error``): the core's ``agent.identify``
    refused it, and nothing was run.

    ``kind`` says why: ``no-run`` (nothing names a run and the key needs one: give the
    conversation, thread, workflow or job id, never the model's tool-call id) or ``invalid-meta``
    (an MCP request's ``_meta`` the core cannot read); ``at`` is the ``_meta`` member concerned
    (``invalid-meta``; ``""`` for ``_meta`` itself), else ``None``; ``message`` is the core's
    sentence, naming what to give. A :class:`LookupError`, as the refusal was before the core
    decided it.
    """

    _fields: ClassVar[tuple[str, ...]] = ("kind", "at", "message")

    def __init__(self, kind: IdentityErrorKind, at: str | None, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.at = at
        self.message = message

    def __repr__(self) -> str:
        return f"IdentityError(kind={self.kind.value!r}, at={self.at!r}, message={self.message!r})"


class EncodingError(OncelyError, ValueError):
    """A string cannot be handed to the core as Unicode text: it holds a lone UTF-16 surrogate,
    which a Python ``str`` may hold and a WIT string cannot carry (replacing it would give two
    different ids one key). Raised for scope, run, step and tool names (and any other plain
    string the core takes); JSON text and arguments holding one are judged by the core instead
    (:class:`CanonError` ``lone-surrogate``, with its offset).

    ``field`` names the string, ``index`` is the surrogate's position in it; ``kind`` is the
    core's kind for a lone surrogate, ``lone-surrogate``.
    """

    kind: ClassVar[CanonErrorKind] = CanonErrorKind.LONE_SURROGATE

    def __init__(self, field: str, index: int) -> None:
        super().__init__(
            f"{field} holds a lone UTF-16 surrogate at index {index}; it is not Unicode text"
        )
        self.field = field
        self.index = index

    def __repr__(self) -> str:
        return f"EncodingError(field={self.field!r}, index={self.index})"


class CoreTrap(OncelyError):
    """The core component trapped: a bug in oncely. This call failed; the instance was dropped."""


class StorageError(OncelyError):
    """The database failed (connection dropped, disk full…). The original error is the
    ``__cause__``. Nothing was recorded by the write that failed."""


class MigrationError(StorageError):
    """The ledger schema could not be brought up to date (or a recorded migration differs)."""


# The refusals of an effect below carry the core's sentence as their message: what the model
# reads for the same outcome (``agent.answer``), given by the machine that raised them; the same
# in every host. Made by hand (``message`` not given), they say only which refusal and key.


class ConflictError(OncelyError):
    """The key was claimed before with different parameters; the tool was not called."""

    def __init__(self, key: str, pointer: str, *, message: str | None = None) -> None:
        super().__init__(message or f"conflict: {key} at {pointer!r}")
        self.key = key
        self.pointer = pointer


class EscalatedError(OncelyError):
    """Only a human can settle this effect now (``Ledger.resolve``); the tool was not called."""

    def __init__(self, key: str, reason: str, *, message: str | None = None) -> None:
        super().__init__(message or f"escalated: {key}: {reason}")
        self.key = key
        self.reason = reason


class InDoubtError(OncelyError):
    """The outcome is unknown and no reconciler could settle it yet. Do not retry blindly: it
    will be reconciled by a sweep, or escalated. Every caller of an in-doubt entry gets this.
    ``retry_after_ms``: when its next reconciliation is due (ms), ``None`` when not known."""

    def __init__(
        self,
        key: str,
        reason: str,
        retry_after_ms: int | None = None,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message or f"in-doubt: {key}: {reason}")
        self.key = key
        self.reason = reason
        self.retry_after_ms = retry_after_ms


class InProgressError(OncelyError):
    """Another worker holds a live claim and did not finish while we waited. ``owner``: the
    holder; ``retry_after_ms``: when to look again (ms), as the core says (as long as the claim
    has run, never past its lease's end)."""

    def __init__(
        self,
        key: str,
        owner: str,
        retry_after_ms: int | None = None,
        *,
        message: str | None = None,
    ) -> None:
        super().__init__(message or f"in-progress: {key} ({owner})")
        self.key = key
        self.owner = owner
        self.retry_after_ms = retry_after_ms


class ToolFailedError(OncelyError):
    """The tool reported a definite failure (the effect did not happen); it was recorded."""

    def __init__(self, reason: str, *, message: str | None = None) -> None:
        super().__init__(message or f"tool-failed: {reason}")
        self.reason = reason


class ResultNotRecordedError(OncelyError):
    """The effect happened, but the tool's result could not be encoded as JSON, so the ledger
    recorded it done without a result: this call and every repeat of the intent raise this,
    and the tool is never called again for it. Return JSON-compatible values (or give
    ``encode``/``decode``)."""

    def __init__(self, key: str, reason: str, *, message: str | None = None) -> None:
        super().__init__(message or f"result-not-recorded: {key}: {reason}")
        self.key = key
        self.reason = reason


class ContentionError(OncelyError):
    """Lost compare-and-swap races too many times in a row on one key."""

    def __init__(self, races: int, *, message: str | None = None) -> None:
        super().__init__(message or f"contention: {races} races")
        self.races = races


class AwaitingApprovalError(OncelyError):
    """The tool's policy asks a person to approve this call first, and nobody has yet; the tool
    was not called. The request is recorded once per intent: asking again (a retry, a resumed
    run, another worker) gets this same request until a person decides (``Ledger.approve`` or
    ``Ledger.deny``); then the next ask runs the call, or raises :class:`DeniedError`.
    ``args_canonical``: the arguments a person decides on; ``version``: the entry's version to
    decide on."""

    def __init__(
        self, key: str, args_canonical: str, version: int, *, message: str | None = None
    ) -> None:
        super().__init__(message or f"awaiting-approval: {key}")
        self.key = key
        self.args_canonical = args_canonical
        self.version = version


class DeniedError(OncelyError):
    """A person denied this call: it did not happen and will not. ``by``: who; ``reason``:
    their note as recorded; ``settlement``: the decision's id."""

    def __init__(
        self, key: str, by: str, reason: str, settlement: str, *, message: str | None = None
    ) -> None:
        super().__init__(message or f"denied: {key} by {by}: {reason}")
        self.key = key
        self.by = by
        self.reason = reason
        self.settlement = settlement


class DefiniteFailure(Exception):
    """Raise from a tool when the provider says the effect did NOT happen (declined card,
    validation error). The ledger records it; a later call may execute a new attempt."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AmbiguousFailure(Exception):
    """Raise from a tool when you cannot tell whether the effect happened (timeout, dropped
    connection, 5xx after sending). The ledger reconciles before anything runs again."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


__all__ = [
    "AmbiguousFailure",
    "CanonError",
    "ConflictError",
    "ContentionError",
    "CoreTrap",
    "DefiniteFailure",
    "EncodingError",
    "EscalatedError",
    "IdentityError",
    "OncelyError",
    "InDoubtError",
    "InProgressError",
    "KeyDerivationError",
    "LedgerError",
    "MigrationError",
    "PolicyError",
    "ResultNotRecordedError",
    "StorageError",
    "ToolFailedError",
]
