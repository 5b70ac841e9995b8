"""oncely: exactly-once effects for AI-agent tool calls.

An idempotency key derived from intent (scope, run, step, tool and the RFC 8785 canonical JSON
of the arguments, hashed with SHA-256) plus a write-ahead effect ledger: a call is claimed
``pending`` before the tool runs and its result recorded after; a repeat replays the result;
an unknown outcome is reconciled, never blindly retried.

Every rule — canonicalization, key derivation, tool policy, ledger transitions — lives in ONE
WebAssembly component shipped in this package and run with wasmtime, so Python computes the
same keys and takes the same decisions as the Rust host and every other oncely host, byte for
byte. This package only calls the component, stores ledger rows (SQLite or PostgreSQL, the Rust
host's schema), keeps the clock and calls tools and reconcilers.

Quick start::

    import oncely

    oncely.canonicalize('{"b": 1, "a": [1.0, 2e3]}')        # '{"a":[1,2000],"b":1}'
    oncely.derive_key(scope="acme", run="run-7", step="refund-1", tool="refund",
                    args={"charge_id": "ch_1", "amount": 500})

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external",
                         "key": {"only": ["/charge_id"], "identity": "scope"},
                         "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict: ...

    with oncely.context(scope="acme", run="run-7", step="refund-1"):
        refund("ch_1", 500)
"""

from __future__ import annotations

from oncely._api import (
    canonicalize,
    canonicalize_value,
    check_tools,
    classify,
    core_defaults,
    default_policy,
    default_spec,
    derive,
    derive_key,
    derive_keys,
    derive_many,
    explain,
    key_spec,
    limits,
    parse_policy,
    resolve_tool,
)
from oncely.errors import (
    AmbiguousFailure,
    AwaitingApprovalError,
    CanonError,
    ConflictError,
    ContentionError,
    CoreTrap,
    DefiniteFailure,
    DeniedError,
    EncodingError,
    EscalatedError,
    IdentityError,
    InDoubtError,
    InProgressError,
    KeyDerivationError,
    LedgerError,
    MigrationError,
    OncelyError,
    PolicyError,
    ResultNotRecordedError,
    StorageError,
    ToolFailedError,
)
from oncely.types import *  # noqa: F403 - the WIT mirrors are part of the API
from oncely.types import IdentityErrorKind
from oncely.types import __all__ as _types_all

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any

    from oncely._aliases import Args, IntentLike, JSONValue, PolicyLike
    from oncely._machine import Call, current_call
    from oncely.aio import AsyncLedger
    from oncely.events import EventHook, EventKind, LedgerEvent
    from oncely.ledger import (
        EffectResult,
        EffectSpec,
        Ledger,
        SweepReport,
        happened,
        system_clock,
    )
    from oncely.store import HistoryRecord, ListFilter, Store
    from oncely.sweeper import AsyncSweeper, Sweeper
    from oncely.tool import Tool, context, current_context

# The ledger, its machines, stores, events (and logging) and the tool decorator are imported at
# their first use: a process that only derives keys never loads them (``bench_cold.py``).
_LAZY = {
    "Args": "oncely._aliases",
    "IntentLike": "oncely._aliases",
    "JSONValue": "oncely._aliases",
    "PolicyLike": "oncely._aliases",
    "Call": "oncely._machine",
    "current_call": "oncely._machine",
    "AsyncLedger": "oncely.aio",
    "EventHook": "oncely.events",
    "EventKind": "oncely.events",
    "LedgerEvent": "oncely.events",
    "EffectResult": "oncely.ledger",
    "EffectSpec": "oncely.ledger",
    "Ledger": "oncely.ledger",
    "SweepReport": "oncely.ledger",
    "happened": "oncely.ledger",
    "system_clock": "oncely.ledger",
    "HistoryRecord": "oncely.store",
    "ListFilter": "oncely.store",
    "Store": "oncely.store",
    "AsyncSweeper": "oncely.sweeper",
    "Sweeper": "oncely.sweeper",
    "Tool": "oncely.tool",
    "context": "oncely.tool",
    "current_context": "oncely.tool",
}
_SUBMODULES = frozenset(("aio", "events", "ledger", "store", "sweeper", "tool"))


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY`, imported at their first use; ``__version__``, the installed
    distribution's version (pyproject.toml is the one place that says it), read at first use:
    :mod:`importlib.metadata` is not imported by ``import oncely``."""
    module = _LAZY.get(name)
    if module is not None or name in _SUBMODULES:
        import importlib

        if module is None:  # ``oncely.ledger`` and the like, as before they were lazy
            return importlib.import_module(f"oncely.{name}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # found directly from now on
        return value
    if name == "__version__":
        import importlib.metadata

        return importlib.metadata.version("oncely")
    raise AttributeError(f"module 'oncely' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBMODULES})


__all__ = [  # noqa: PLE0604
    "AmbiguousFailure",
    "Args",
    "AsyncLedger",
    "AsyncSweeper",
    "Call",
    "CanonError",
    "AwaitingApprovalError",
    "ConflictError",
    "ContentionError",
    "CoreTrap",
    "DefiniteFailure",
    "DeniedError",
    "EffectResult",
    "EffectSpec",
    "EncodingError",
    "EscalatedError",
    "IdentityError",
    "IdentityErrorKind",
    "EventHook",
    "EventKind",
    "HistoryRecord",
    "OncelyError",
    "InDoubtError",
    "InProgressError",
    "IntentLike",
    "JSONValue",
    "KeyDerivationError",
    "Ledger",
    "LedgerError",
    "LedgerEvent",
    "ListFilter",
    "MigrationError",
    "PolicyError",
    "PolicyLike",
    "ResultNotRecordedError",
    "StorageError",
    "Store",
    "SweepReport",
    "Sweeper",
    "Tool",
    "ToolFailedError",
    "__version__",  # noqa: F405 - read at first use: __getattr__ below
    "canonicalize",
    "canonicalize_value",
    "check_tools",
    "classify",
    "context",
    "core_defaults",
    "current_call",
    "current_context",
    "default_policy",
    "default_spec",
    "derive",
    "derive_key",
    "derive_keys",
    "derive_many",
    "explain",
    "happened",
    "key_spec",
    "limits",
    "parse_policy",
    "resolve_tool",
    "system_clock",
    *_types_all,
]
