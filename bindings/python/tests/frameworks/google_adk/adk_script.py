"""A scripted ADK model (a ``BaseLlm`` answering from a list, no network, like ADK's own
``MockModel`` in ``google.adk.cli.agent_test_runner``) and helpers to run an agent turn."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.genai import types
from pydantic import Field


class ScriptedLlm(BaseLlm):
    """Answers each request with the next of ``turns``; keeps the requests it was sent."""

    model: str = "scripted"
    turns: list[types.Content] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        yield LlmResponse(content=self.turns[len(self.requests) - 1])

    def complete(self) -> bool:
        return len(self.requests) == len(self.turns)


def call(call_id: str, args: dict[str, Any], name: str = "refund") -> types.Content:
    """A model turn asking for one function call."""
    fc = types.FunctionCall(id=call_id, name=name, args=args)
    return types.Content(role="model", parts=[types.Part(function_call=fc)])


def say(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


async def run_turn(runner: Runner, session: str, message: str | None, **kw: Any) -> list[Any]:
    """The events of one invocation (``message`` None: ``kw`` names the one to resume)."""
    events = []
    async for event in runner.run_async(
        user_id="u1",
        session_id=session,
        new_message=None if message is None else user(message),
        **kw,
    ):
        events.append(event)
    return events


def responses(events: list[Any], name: str = "refund") -> list[tuple[str, Any]]:
    """(function-call id, response) of every function response ``name`` in ``events``."""
    return [
        (fr.id, fr.response) for e in events for fr in e.get_function_responses() if fr.name == name
    ]


def final_text(events: list[Any]) -> str:
    texts = [p.text for e in events if e.content for p in e.content.parts or [] if p.text]
    return texts[-1] if texts else ""
