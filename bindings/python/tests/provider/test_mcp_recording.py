"""What oncely.provider.mcp records of what the SDK made of a tool's value (no server): the
core's record-mcp reads its JSON; a value JSON cannot carry is not recorded."""

from __future__ import annotations

import json

from mcp_types import CallToolResult, TextContent

from oncely.provider.mcp import _recording
from oncely.types import Returned, ToolFailure, Unrecordable


def test_a_call_tool_result_is_recorded_as_its_json() -> None:
    r = _recording(CallToolResult(content=[TextContent(type="text", text="ok")]))
    assert isinstance(r, Returned)
    assert json.loads(r.json)["content"] == [{"type": "text", "text": "ok"}]


def test_an_is_error_result_is_the_cores_definite_failure() -> None:
    r = _recording(CallToolResult(content=[TextContent(type="text", text="no")], is_error=True))
    assert isinstance(r, ToolFailure) and r.definite


def test_another_value_is_left_to_the_core_not_declared_a_failure() -> None:
    # Not a CallToolResult (another result type of the SDK): its JSON, read by the core.
    r = _recording({"resultType": "input_required", "inputRequests": {}})
    assert isinstance(r, Returned), r
    assert json.loads(r.json) == {"resultType": "input_required", "inputRequests": {}}


def test_a_value_json_cannot_carry_is_unrecordable() -> None:
    for value in (object(), {"x": float("nan")}, {1j: 1}):
        r = _recording(value)
        assert isinstance(r, Unrecordable), value
