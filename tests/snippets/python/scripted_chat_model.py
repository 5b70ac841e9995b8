# scripts/snippets: runs before a README block that runs a LangGraph agent: `model`, a scripted
# chat model (LangChain's fake chat model: no network) that calls refund once, then answers.
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage


class ScriptedChatModel(FakeMessagesListChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChatModel":
        return self  # the script already names the tool


refund_call = {"type": "tool_call", "id": "call_1", "name": "refund",
               "args": {"charge_id": "ch_1", "amount": 500}}  # fmt: skip
model = ScriptedChatModel(
    responses=[AIMessage("", tool_calls=[refund_call]), AIMessage("Refunded.")]
)
