"""A scripted Strands model (no network): each turn streams what the script says — tool uses,
each with its ``toolUseId`` and its arguments as the JSON text a model streams, or a text
answer. A Strands ``Model`` subclass, as the SDK's own tests mock a model provider."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from typing import Any

from strands.models import Model

Turn = list[tuple[str, str, str]] | str
"""A turn: tool uses ``[(tool name, toolUseId, arguments as JSON text)]``, or a text answer."""


def use(name: str, call_id: str, arguments: str | dict[str, Any]) -> tuple[str, str, str]:
    """A tool use; ``arguments`` as the JSON text the model streams (or a dict, dumped)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return (name, call_id, text)


class ScriptedModel(Model):
    """Streams one turn of ``turns`` per request; ``before_turn(n)`` runs before turn ``n``."""

    def __init__(self, turns: list[Turn], before_turn: Callable[[int], None] | None = None) -> None:
        self.turns = list(turns)
        self.asked = 0
        self.before_turn = before_turn
        self.seen: list[Any] = []
        """The messages of each request (what the model read)."""

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {"model_id": "scripted"}

    def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError

    def assert_complete(self) -> None:
        assert self.asked == len(self.turns), f"asked {self.asked} of {len(self.turns)} turns"

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        if self.before_turn is not None:
            self.before_turn(self.asked)
        self.seen.append(json.loads(json.dumps(messages, default=str)))
        assert self.asked < len(self.turns), "the model was asked more turns than scripted"
        turn = self.turns[self.asked]
        self.asked += 1
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(turn, str):
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": turn}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        for name, call_id, arguments in turn:
            yield {
                "contentBlockStart": {"start": {"toolUse": {"name": name, "toolUseId": call_id}}}
            }
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": arguments}}}}
            yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


def tool_results(messages: list[Any]) -> list[dict[str, Any]]:
    """Every ``toolResult`` in an agent's messages, in order."""
    return [
        block["toolResult"]
        for m in messages
        for block in m.get("content", [])
        if isinstance(block, dict) and "toolResult" in block
    ]


def text_of(result: dict[str, Any]) -> str:
    """The text of a ``toolResult``."""
    return "".join(c.get("text", "") for c in result.get("content", []))
