#!/usr/bin/env python3
"""An agent's side of MCP, with the official `mcp` client SDK: what retries tool calls.

As a library:

    async with Agent(url_or_command) as agent:       # "http://…/mcp", or ["cmd", "arg", …]
        result = await agent.call("charge", {"customer": "cus_1", "amount_cents": 1000},
                                  timeout_s=1.0, retries=3)
        again = await agent.call("charge", reask({"customer": "cus_1", "amount_cents": 1000}))

`call` is what an HTTP/SDK-level retry does: a read timeout on the call → the same call again
(the SDK sends `notifications/cancelled` for the abandoned request first), up to `retries` more
times; it returns the final CallToolResult (an `isError` result is a result, not retried) and
raises the last timeout if every attempt timed out. `reask(args)` is what a model does when it asks
again: the same intent, written differently (members in reverse order, integers as floats).

As a command:

    python agent.py --url http://127.0.0.1:PORT/mcp TOOL '{"customer": "cus_1", ...}'
    python agent.py [options] TOOL ARGS_JSON -- COMMAND ARGS...      # stdio
    options: --timeout S --retries N --meta JSON --reask --list

prints the final CallToolResult as JSON (or the tool list with --list).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import REQUEST_TIMEOUT, CallToolResult, Implementation


def reask(args: dict[str, Any]) -> dict[str, Any]:
    """The same arguments as a model might write them again: reversed member order, and every
    integer as a float (1000 → 1000.0); canonical JSON (RFC 8785) makes both the same text."""

    def re(v: Any) -> Any:
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            return float(v)
        if isinstance(v, dict):
            return {k: re(v[k]) for k in reversed(list(v))}
        if isinstance(v, list):
            return [re(x) for x in v]
        return v

    return re(args)


def dump(result: Any) -> dict[str, Any]:
    """A result (pydantic model) as the JSON the wire carries (`_meta`, `isError`, …)."""
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def result_meta(result: CallToolResult) -> dict[str, Any]:
    return dump(result).get("_meta") or {}


def result_text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def is_timeout(e: BaseException) -> bool:
    return isinstance(e, MCPError) and e.error.code == REQUEST_TIMEOUT


class Agent:
    """One MCP client connection: `target` is a Streamable HTTP URL or a command (a list) to run
    over stdio. `errlog` receives a stdio server's stderr. `mode` is the SDK's connect mode:
    "auto" (its default: probe `server/discover`, fall back to `initialize`) or "legacy".
    `elicitation` is the SDK's elicitation callback (the client then declares elicitation), and
    `client_name` the name the client gives in its `clientInfo`."""

    def __init__(
        self,
        target: str | Sequence[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        errlog: TextIO | None = None,
        mode: str = "auto",
        name: str = "agent",
        elicitation: Any = None,
        client_name: str | None = None,
    ) -> None:
        self.target = target
        self.attempts: list[str] = []  # what each call attempt ended with, for the test's messages
        if isinstance(target, str):
            server: Any = target
        else:
            cmd = list(target)
            params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=cwd)
            server = stdio_client(params, errlog=errlog or sys.stderr)
        kw: dict[str, Any] = {}
        if elicitation is not None:
            kw["elicitation_callback"] = elicitation
        if client_name is not None:
            kw["client_info"] = Implementation(name=client_name, version="1.0.0")
        self.client = Client(server, mode=mode, **kw)
        self.name = name

    async def __aenter__(self) -> Agent:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.client.__aexit__(*exc)

    async def call(
        self,
        tool: str,
        args: dict[str, Any],
        timeout_s: float = 30.0,
        retries: int = 0,
        meta: dict[str, Any] | None = None,
    ) -> CallToolResult:
        for attempt in range(retries + 1):
            try:
                result = await self.client.call_tool(
                    tool, args, read_timeout_seconds=timeout_s, meta=meta
                )
            except MCPError as e:
                if not is_timeout(e):
                    self.attempts.append(
                        f"{tool} #{attempt + 1}: error {e.error.code} {e.error.message}"
                    )
                    raise
                self.attempts.append(f"{tool} #{attempt + 1}: timed out after {timeout_s}s")
                if attempt == retries:
                    raise
                continue
            self.attempts.append(
                f"{tool} #{attempt + 1}: {'isError ' if result.is_error else ''}"
                f"{result_text(result)[:200]!r}"
            )
            return result
        raise AssertionError("unreachable")

    async def try_call(
        self, tool: str, args: dict[str, Any], timeout_s: float, meta: dict[str, Any] | None = None
    ) -> CallToolResult | None:
        """One attempt; None when it timed out (the agent's view: the outcome is unknown)."""
        try:
            return await self.call(tool, args, timeout_s=timeout_s, retries=0, meta=meta)
        except MCPError as e:
            if is_timeout(e):
                return None
            raise

    # The rest of the protocol, for the pass-through tests.
    async def list_tools(self) -> Any:
        return await self.client.list_tools()

    async def ping(self) -> Any:
        # The SDK warns that 2026-07-28 has no ping; on the handshake-era connections it negotiates
        # with such servers (and the gateway) ping is part of the protocol.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="ping is removed")
            return await self.client.send_ping()


async def _main(a: argparse.Namespace, command: list[str]) -> int:
    target: str | list[str] = a.url if a.url else command
    if not target:
        print("agent.py: give --url URL or -- COMMAND ARGS...", file=sys.stderr)
        return 2
    async with Agent(target) as agent:
        if a.list:
            print(json.dumps(dump(await agent.list_tools()), indent=2))
            return 0
        args = json.loads(a.args)
        if a.reask:
            args = reask(args)
        meta = json.loads(a.meta) if a.meta else None
        try:
            result = await agent.call(
                a.tool, args, timeout_s=a.timeout, retries=a.retries, meta=meta
            )
        finally:
            for line in agent.attempts:
                print(f"agent: {line}", file=sys.stderr)
        print(json.dumps(dump(result), indent=2))
        return 1 if result.is_error else 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1 :]
    ap = argparse.ArgumentParser(
        description="Call an MCP tool the way an agent does (retrying on timeout)."
    )
    ap.add_argument(
        "--url", help="a Streamable HTTP endpoint (else: -- COMMAND ARGS... over stdio)"
    )
    ap.add_argument(
        "--timeout", type=float, default=30.0, help="read timeout of each attempt, seconds"
    )
    ap.add_argument(
        "--retries", type=int, default=0, help="calls again this many times on a timeout"
    )
    ap.add_argument("--meta", help="the request's _meta, a JSON object")
    ap.add_argument(
        "--reask", action="store_true", help="send the arguments reordered and reformatted"
    )
    ap.add_argument("--list", action="store_true", help="list the tools instead")
    ap.add_argument("tool", nargs="?")
    ap.add_argument("args", nargs="?", default="{}")
    a = ap.parse_args(argv)
    if not a.list and not a.tool:
        ap.error("give TOOL ARGS_JSON, or --list")
    return anyio.run(_main, a, command)


if __name__ == "__main__":
    sys.exit(main())
