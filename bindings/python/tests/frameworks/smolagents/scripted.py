"""A scripted smolagents model (no network): each step returns what the script says — tool
calls, each with its id and its arguments (a dict, or the JSON text a model sends, which the
agent parses), or a final answer (the ``final_answer`` tool, as a ``ToolCallingAgent`` ends).
A ``smolagents.Model`` subclass returning ``ChatMessage``s, as smolagents' own tests fake one."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from smolagents import LogLevel, ToolCallingAgent
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)

Turn = list[tuple[str, str, Any]] | str
"""A step: tool calls ``[(tool name, call id, arguments)]``, or a final answer's text."""


def use(name: str, call_id: str, arguments: str | dict[str, Any]) -> tuple[str, str, Any]:
    """A tool call; ``arguments`` a dict, or the JSON text a model sends."""
    return (name, call_id, arguments)


class ScriptedModel(Model):
    """Answers one turn of ``turns`` per step; ``before_turn(n)`` runs before turn ``n``."""

    def __init__(self, turns: list[Turn], before_turn: Callable[[int], None] | None = None) -> None:
        super().__init__(model_id="scripted")
        self.turns = list(turns)
        self.asked = 0
        self.before_turn = before_turn
        self.seen: list[str] = []
        """The text of the messages of each request (what the model read)."""

    def assert_complete(self) -> None:
        assert self.asked == len(self.turns), f"asked {self.asked} of {len(self.turns)} turns"

    def generate(self, messages: list[Any], **kwargs: Any) -> ChatMessage:
        if self.before_turn is not None:
            self.before_turn(self.asked)
        self.seen.append(json.dumps([_text(m) for m in messages]))
        assert self.asked < len(self.turns), "the model was asked more turns than scripted"
        turn = self.turns[self.asked]
        self.asked += 1
        calls = [use("final_answer", f"final_{self.asked}", {"answer": turn})]
        if not isinstance(turn, str):
            calls = turn
        return ChatMessage(
            role=MessageRole.ASSISTANT,
            content="",
            tool_calls=[
                ChatMessageToolCall(
                    id=call_id,
                    type="function",
                    function=ChatMessageToolCallFunction(name=name, arguments=arguments),
                )
                for name, call_id, arguments in calls
            ],
        )


def _text(message: Any) -> str:
    content = message.content if isinstance(message, ChatMessage) else message.get("content")
    if isinstance(content, list):
        return "".join(c.get("text", "") for c in content if isinstance(c, dict))
    return str(content or "")


def make_agent(
    tools: list[Any], turns: list[Turn], **kw: Any
) -> tuple[ToolCallingAgent, ScriptedModel]:
    """A ``ToolCallingAgent`` on a scripted model, quiet."""
    model = ScriptedModel(turns)
    agent = ToolCallingAgent(tools=tools, model=model, verbosity_level=LogLevel.OFF, **kw)
    return agent, model


def observations(agent: ToolCallingAgent) -> list[str]:
    """What each action step showed the model of its tool calls: its observation, or
    ``Error:\\n…`` (smolagents' tool error), in order (final answers left out)."""
    from smolagents.memory import ActionStep

    out: list[str] = []
    for step in agent.memory.steps:
        if not isinstance(step, ActionStep) or step.is_final_answer:
            continue
        if step.error is not None:
            out.append(f"Error:\n{step.error}")
        else:
            out.append(step.observations or "")
    return out
