"""The type aliases of the pure functions' arguments (``oncely.Args``, ``oncely.JSONValue``,
``oncely.PolicyLike``, ``oncely.IntentLike``): made at their first use, because making them
imports :mod:`typing`, which ``import oncely`` and a first key do not need (about 3 ms).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

from oncely.types import Intent, KeySpec, ToolPolicy

JSONValue = Union[None, bool, int, float, str, list[Any], dict[str, Any]]
"""A JSON-compatible Python value: ``None``, ``bool``, ``int``, finite ``float``, ``str``, lists
and tuples, dicts (and other mappings) whose member names are ``str``."""

Args = Union[str, bytes, JSONValue, Mapping[str, Any]]
"""Tool arguments: JSON text (``str`` or UTF-8 ``bytes``) or a JSON-compatible object."""

PolicyLike = Union[str, Mapping[str, Any], ToolPolicy, KeySpec, None]
"""An oncely policy: policy JSON text, a policy mapping (parsed by the core), a parsed
:class:`ToolPolicy`, a bare :class:`KeySpec`, or ``None`` for the default spec."""

IntentLike = Union[Intent, Mapping[str, Any]]
"""An :class:`Intent`, or a mapping with ``scope``, ``run``, ``step``, ``tool`` and ``args``
(the shape the ``oncely`` CLI reads)."""
