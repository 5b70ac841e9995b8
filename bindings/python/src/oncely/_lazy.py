"""Modules imported on first use, not by ``import oncely``.

A synchronous caller never needs :mod:`asyncio`, and a first key needs none of it, yet importing
it costs about as much as a thousand keys (docs/performance.md, "Cold start"). A module that uses
it imports it as ``asyncio = lazy("asyncio")`` (the real module for type checkers): the first
attribute read imports it. Nothing is put in :data:`sys.modules` before that, so other libraries
see the process as it is.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported at run time: a first key would pay ~3 ms
if TYPE_CHECKING:
    from typing import Any


class LazyModule:
    """Stands for the module ``name`` until an attribute is read, then imports it."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        module = sys.modules.get(self._name)
        if module is None:
            __import__(self._name)
            module = sys.modules[self._name]
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<oncely lazy module {self._name!r}>"


def lazy(name: str) -> Any:
    """The module ``name``, imported at its first use."""
    return LazyModule(name)
