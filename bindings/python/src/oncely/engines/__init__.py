"""Durable-execution engines: their own identity of a step, given to oncely.

A durable engine (DBOS, Temporal) records each step's result and, after a crash, re-executes a
step whose result it has not recorded. That is the engine's guarantee: at least once. A step whose
side effect happened (the provider paid) but whose result was not recorded yet (the worker was
killed, the answer timed out) runs again, and pays again: the engine cannot know what the
provider did. Called through an oncely tool keyed by the engine's identity of the step, the
re-executed step finds the ledger's record of its effect instead: the recorded result
(replayed), or, for a claim its dead worker left, the reconciler's finding (reconciled).

- :mod:`oncely.engines.dbos`: ``step_context()``: run = the DBOS workflow id, step = the step's
  function id (``DBOS.workflow_id``, ``DBOS.step_id``);
- :mod:`oncely.engines.temporal`: ``activity_context()``: run = the workflow id, step = the
  activity id (``activity.info()``);
- :mod:`oncely.engines.restate`: ``run_context(ctx, name)``: run = the invocation id, step = the
  ``ctx.run``'s name and occurrence (``ctx.request().id``, ``"refund#1"``).

With ``by_step=False`` only the run is given (no step: the same tool with the same arguments in
the workflow is one effect wherever it is called): for an agent loop run as a workflow, whose
model may re-ask for the same effect in a LATER step (a new step id: keyed by step, a second
effect). Each only maps the engine's context to :func:`oncely.context`; the core decides the
key, as for every other caller (docs/choosing-keys.md, "Durable engines"). None imports its
engine until it is used. Outside a step or an activity they raise :class:`EngineContextError`
(a :class:`LookupError`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar, cast

from oncely.tool import context

F = TypeVar("F", bound=Callable[..., Any])


class EngineContextError(LookupError):
    """The engine's identity was asked for outside a step (DBOS), an activity (Temporal) or a
    handler (Restate)."""


class EngineContext(AbstractContextManager[None]):
    """``oncely.context(scope=..., run=..., step=...)`` with the run and step the engine gives
    when the block is entered (or the decorated function is called). A context manager and a
    decorator of sync and ``async def`` functions; reusable, one identity per entry."""

    def __init__(
        self, identify: Callable[[], tuple[str, str | None]], scope: str | None, by_step: bool
    ) -> None:
        self._identify = identify
        self._scope = scope
        self._by_step = by_step
        self._open: list[AbstractContextManager[None]] = []

    @contextmanager
    def _entered(self) -> Iterator[None]:
        run, step = self._identify()
        with context(scope=self._scope, run=run, step=step if self._by_step else None):
            yield

    def __enter__(self) -> None:
        cm = self._entered()
        cm.__enter__()
        self._open.append(cm)

    def __exit__(self, *exc: Any) -> bool | None:
        return self._open.pop().__exit__(*exc)

    def __call__(self, fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                with self._entered():
                    return await fn(*args, **kwargs)

            return cast(F, run_async)

        @functools.wraps(fn)
        def run_sync(*args: Any, **kwargs: Any) -> Any:
            with self._entered():
                return fn(*args, **kwargs)

        return cast(F, run_sync)


__all__ = ["EngineContext", "EngineContextError"]
