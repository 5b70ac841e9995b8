"""The tool decorator, and the context that says which run and step a call belongs to.

::

    ledger = oncely.Ledger.sqlite("ledger.db")

    @ledger.tool(policy={"class": "irreversible-external",
                         "key": {"only": ["/charge_id"], "identity": "scope"},
                         "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        return payments.refund(charge_id, amount, idempotency_key=idempotency_key)

    @refund.reconciler
    def find_refund(req: oncely.ReconcileRequest) -> oncely.ReconcileVerdict:
        found = payments.find_refund(idempotency_key=req.key)
        return oncely.happened(found) if found else oncely.NotHappened()

    with oncely.context(scope="acme", run="conversation-7"):
        refund("ch_1", 500)        # runs once; a repeat returns the recorded result

The tool's arguments (bound to its signature, defaults applied, the key parameter left out)
are the intent's arguments; the wrapped function receives the idempotency key in the
``idempotency_key`` parameter (configurable) to pass on to the provider. ``async def`` tools
give an async callable that uses the asyncio API.

Results are stored as JSON. A fresh call returns the tool's own return value; a replay returns
the recorded JSON decoded with :func:`json.loads` (so a tuple comes back as a list, a dataclass
must be encoded by you). Give ``encode``/``decode`` to store other types. A result that
cannot be encoded as JSON still settles the effect (the tool is never called again for the
intent), recorded without a result: the call raises :class:`~oncely.ResultNotRecordedError`, and
so does every repeat.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any, Generic, Protocol, TypeVar

from oncely import _api
from oncely._machine import EffectResult, Reconciler
from oncely.types import ToolPolicy

T = TypeVar("T")

_current: ContextVar[Mapping[str, str]] = ContextVar("oncely_context", default=MappingProxyType({}))


@contextmanager
def context(
    *, scope: str | None = None, run: str | None = None, step: str | None = None
) -> Iterator[None]:
    """Set the scope, run and/or step of the tool calls made inside the block (nested blocks
    override only what they name). Works across threads' and asyncio tasks' contexts
    (:mod:`contextvars`).

    - ``scope``: the tenant or namespace (``"default"`` when none is given);
    - ``run``: the agent run (conversation, thread, workflow execution, job id): what a retry,
      a model re-asking, a restart from a checkpoint and a redelivery all share;
    - ``step`` (optional): only to make two identical calls in one run two effects on purpose
      (a second installment). Without one, the same tool with the same arguments in the same
      run is one effect. Never the model's tool-call id (a model that re-asks gets a new one,
      and the effect would run twice), an attempt counter or a timestamp. See
      docs/choosing-keys.md.
    """
    new = dict(_current.get())
    for name, value in (("scope", scope), ("run", run), ("step", step)):
        if value is not None:
            new[name] = value
    token = _current.set(new)
    try:
        yield
    finally:
        _current.reset(token)


def current_context() -> Mapping[str, str]:
    """The scope, run and step set by the enclosing :func:`context` blocks."""
    return dict(_current.get())


class Guarding(Protocol):
    """What a :class:`Tool` needs of its ledger (a :class:`~oncely.Ledger` is one; this module
    does not import the ledger's, which imports it)."""

    @property
    def aio(self) -> Any: ...

    @property
    def run(self) -> Callable[..., Any]: ...

    @property
    def reconciler(self) -> Callable[..., Any]: ...


class Tool(Generic[T]):
    """A tool function guarded by a ledger (made by :meth:`Ledger.tool`)."""

    def __init__(
        self,
        ledger: Guarding,
        fn: Callable[..., T],
        *,
        name: str,
        policy: str | Mapping[str, Any] | ToolPolicy | None,
        key_param: str,
        options: dict[str, Any],
    ) -> None:
        self.ledger = ledger
        self.fn = fn
        self.name = name
        self.policy = _api.parse_policy(policy)
        """The tool's policy, as the core read it."""
        self.key_param = key_param
        self._options = options
        self._signature = inspect.signature(fn)
        if key_param not in self._signature.parameters:
            raise TypeError(
                f"{fn.__qualname__} must accept the idempotency key as a parameter named "
                f"{key_param!r} (or pass key_param=...)"
            )
        self.is_async = inspect.iscoroutinefunction(fn)
        functools.update_wrapper(self, fn)
        # What a caller passes: the function's parameters without the key, which the ledger
        # gives. Frameworks that build a schema from the signature (LangChain's @tool, pydantic)
        # then never ask the model for a key.
        self.__signature__ = self._signature.replace(
            parameters=[p for p in self._signature.parameters.values() if p.name != key_param]
        )

    def __repr__(self) -> str:
        return f"<oncely tool {self.name!r} ({self.policy.class_.value})>"

    def reconciler(self, fn: Reconciler) -> Reconciler:
        """Register ``fn`` as this tool's reconciler (decorator)."""
        self.ledger.reconciler(self.name, fn)
        return fn

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> inspect.BoundArguments:
        bound = self._signature.bind(*args, **{self.key_param: "", **kwargs})
        bound.apply_defaults()
        return bound

    def arguments(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The intent's arguments for a call with these arguments."""
        bound = self._bind(args, kwargs)
        out: dict[str, Any] = {}
        for name, value in bound.arguments.items():
            if name == self.key_param:
                continue
            if self._signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                out.update(value)
            else:
                out[name] = value
        return out

    def _intent(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        # The core identifies the call (agent.identify, docs/choosing-keys.md): no scope is
        # "default"; no step keys a `step` spec by run; no run is refused (IdentityError, a
        # LookupError) unless the key is natural.
        ctx = _current.get()
        i, spec = _api.identify_keyed(
            self.policy.key or _api.default_spec(),
            tool=self.name,
            scope=ctx.get("scope"),
            run=ctx.get("run"),
            step=ctx.get("step"),
            effect_class=self.policy.class_,
        )
        return {
            "scope": i.scope,
            "run": i.run or "",
            "step": i.step or "",
            "tool": self.name,
            "args": self.arguments(*args, **kwargs),
            "policy": dataclasses.replace(self.policy, key=spec),
        }

    def _tool_fn(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Callable[[str], Any]:
        def call(key: str) -> Any:
            return self.fn(*args, **{**kwargs, self.key_param: key})

        return call

    def key(self, *args: Any, **kwargs: Any) -> str:
        """The idempotency key a call with these arguments has in the current context."""
        i = self._intent(args, kwargs)
        return _api.derive_key(
            scope=i["scope"], run=i["run"], step=i["step"], tool=i["tool"], args=i["args"],
            policy=i["policy"],
        )  # fmt: skip

    def effect(self, *args: Any, **kwargs: Any) -> Any:
        """Call the tool through the ledger; returns an :class:`~oncely.EffectResult` (value,
        key, replayed, reconciled) — a coroutine of one for an ``async def`` tool."""
        intent = self._intent(args, kwargs)
        tool_fn = self._tool_fn(args, kwargs)
        if self.is_async:
            return self.ledger.aio.run(tool_fn, **intent, **self._options)
        return self.ledger.run(tool_fn, **intent, **self._options)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the tool through the ledger; returns its result (fresh or replayed)."""
        if self.is_async:
            return _value_of(self.effect(*args, **kwargs))
        result: EffectResult[T] = self.effect(*args, **kwargs)
        return result.value


async def _value_of(aw: Any) -> Any:
    return (await aw).value


def make_tool_decorator(
    ledger: Guarding,
    name: str | None,
    *,
    policy: str | Mapping[str, Any] | ToolPolicy | None = None,
    key_param: str = "idempotency_key",
    max_attempts: int = 0,
    wait: float | None = None,
    definite: tuple[type[BaseException], ...] = (),
    encode: Callable[[Any], str] | None = None,
    decode: Callable[[str], Any] | None = None,
    approval_wait: float | None = None,
) -> Callable[[Callable[..., T]], Tool[T]]:
    """See :meth:`Ledger.tool`."""
    options = {
        "max_attempts": max_attempts,
        "wait": wait,
        "definite": definite,
        "encode": encode,
        "decode": decode,
        "approval_wait": approval_wait,
    }

    def deco(fn: Callable[..., T]) -> Tool[T]:
        return Tool(
            ledger,
            fn,
            name=name or fn.__name__,
            policy=policy,
            key_param=key_param,
            options=options,
        )

    return deco


__all__ = ["Tool", "context", "current_context", "make_tool_decorator"]
