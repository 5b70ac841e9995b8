"""Adapters: oncely where agents call tools. Each is an optional extra of the package.

- :mod:`oncely.adapters.langchain`: LangChain and LangGraph tools (``oncely[langchain]``, or
  ``oncely[langgraph]`` with LangGraph);
- :mod:`oncely.adapters.openai_agents`: the OpenAI Agents SDK's ``function_tool``
  (``oncely[openai-agents]``);
- :mod:`oncely.adapters.pydantic_ai`: a Pydantic AI ``Tool`` (``oncely[pydantic-ai]``);
- :mod:`oncely.adapters.crewai`: a CrewAI tool (``oncely[crewai]``);
- :mod:`oncely.adapters.google_adk`: a Google ADK ``FunctionTool`` (``oncely[google-adk]``);
- :mod:`oncely.adapters.strands`: a Strands Agents tool (``oncely[strands]``);
- :mod:`oncely.adapters.llama_index`: a LlamaIndex ``FunctionTool`` (``oncely[llama-index]``);
- :mod:`oncely.adapters.smolagents`: a smolagents ``Tool`` (``oncely[smolagents]``);
- :mod:`oncely.adapters.http`: ``httpx`` and ``requests`` calls with the key as the provider's
  ``Idempotency-Key`` (``oncely[http]``).

The framework adapters share one rule for which calls are one effect, decided by the core
(``agent.identify``; docs/choosing-keys.md, the same as the MCP gateway's, docs/mcp.md
"Identity"), and what the model reads is the core's answer too (``agent.answer``,
:func:`answer_for`, :func:`reply_for`):

- **run** = the framework's conversation: the LangGraph thread id (``configurable.thread_id``),
  the Agents SDK's ``RunConfig.group_id``, Pydantic AI's ``conversation_id``, the CrewAI Flow's
  ``state.id`` (else the Crew's id), the ADK session, the Strands session, the LlamaIndex
  memory's session, or the run you give;
- **step** = none by default: a tool keyed by ``step`` (the default identity) is then keyed by
  ``run`` — the same tool with the same arguments in the same run is ONE effect, so a model that
  re-asks after an error (with a new tool-call id, reordered arguments, ``5e2`` for ``500``) gets
  the first effect's result. A step is given only to make two identical calls two effects on
  purpose (``oncely.context(step=...)`` or the adapter's ``step=``);
- the model's **tool-call id** is recorded for audit (:class:`CallRecord`), never keyed.

The model never sees the idempotency key: the tool's schema is the function's parameters
without it.
"""

from oncely.adapters._core import CallRecord, answer_for, reply_for

__all__ = ["CallRecord", "answer_for", "reply_for"]
