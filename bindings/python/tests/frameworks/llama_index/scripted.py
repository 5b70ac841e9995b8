"""LlamaIndex's own test model, scripted: ``MockFunctionCallingLLM`` (llama-index-core) with a
response generator that answers from a list, and remembers what the model read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ToolCallBlock
from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM


def call(id_: str, args: dict[str, Any] | str, tool: str = "refund") -> ChatMessage:
    """An assistant message calling ``tool`` (``args``: a dict, or the JSON text a model
    streams, which LlamaIndex parses)."""
    block = ToolCallBlock(tool_call_id=id_, tool_name=tool, tool_kwargs=args)
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block])


def say(text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.ASSISTANT, content=text)


class Script:
    """The model's replies, in order (the last one again once they are used up); ``read``
    holds the tool messages it was given last."""

    def __init__(self, *replies: ChatMessage) -> None:
        self.replies = list(replies)
        self.read: list[ChatMessage] = []

    def __call__(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.read = [m for m in messages if m.role == MessageRole.TOOL]
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def llm(self) -> MockFunctionCallingLLM:
        return MockFunctionCallingLLM(response_generator=self)
