"""A scripted CrewAI model (a ``crewai.BaseLLM`` subclass, as CrewAI's own tests stub one): it
answers each call with the next reply of its script — a list of native tool calls, or the final
text — and keeps what it was sent. No network."""

from __future__ import annotations

import json
import os
from typing import Any

# CrewAI's telemetry and tracing stay off: the tests reach no network.
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from crewai import BaseLLM


def tool_call(id_: str, name: str, **args: Any) -> dict[str, Any]:
    """A native tool call as a provider sends it (the arguments as JSON text)."""
    return {
        "id": id_,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def raw_call(id_: str, name: str, arguments: str) -> dict[str, Any]:
    """A native tool call with its arguments spelled exactly as given."""
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


class ScriptedLLM(BaseLLM):
    def __init__(self, replies: list[Any]) -> None:
        super().__init__(model="scripted")
        self._replies = list(replies)
        self._sent: list[Any] = []
        self._tools: list[Any] = []

    @property
    def sent(self) -> list[Any]:
        """The messages of every call, in order."""
        return self._sent

    @property
    def tools(self) -> list[Any]:
        """The tool schemas of the last call (what the model sees)."""
        return self._tools

    def tool_messages(self) -> list[str]:
        """What the model read of its tool calls, in order (the last call's conversation)."""
        return [str(m.get("content")) for m in self._sent[-1] if m.get("role") == "tool"]

    def call(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> Any:
        self._sent.append(list(messages) if isinstance(messages, list) else messages)
        self._tools = list(tools or [])
        return self._replies.pop(0) if self._replies else "Done."

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        return self.call(*args, **kwargs)

    def supports_function_calling(self) -> bool:
        return True

    def supports_stop_words(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 8192
