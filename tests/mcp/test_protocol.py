"""The gateway's side of the protocol, beyond the five scenarios: a server process that crashes
mid-call (bare: the retry charges again; through the gateway: one charge, found by the lookup on
the restarted server), a server reached over Streamable HTTP (`--upstream-url`), a client-chosen
`idempotencyKey` in a `tools/call`'s params (SEP-3182), and malformed messages from the agent,
answered with JSON-RPC errors while the session goes on: over stdio and over Streamable HTTP
(`--listen`), each with the request's id whenever it can be read (docs/mcp.md, "Malformed
messages").
"""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from agent import Agent, dump, result_meta
from conftest import report
from harness import effects, gateway_cmd, oncely, payments_cmd
from test_payments import ARGS, assert_keyed, assert_retried_twice_over, charge_of, stdio_agent

pytestmark = pytest.mark.anyio


# --- f. the server process crashes between the charge and its answer ---------------------------


async def test_f_server_crash_mid_call_bare(tmp_path: Path) -> None:
    charges = tmp_path / "charges.jsonl"
    cmd = payments_cmd(charges, crash_times=1)
    agent, err = stdio_agent(cmd, tmp_path, "agent")
    with err:
        # The SDK ends the session with an error (in a group) when the server's stdout closes.
        with pytest.raises(Exception) as crashed:
            async with agent:
                await agent.call("charge", ARGS, timeout_s=10)
        print(f"the call ended with {crashed.value!r}")
        # The agent starts the server again and retries, as MCP clients do.
        again, err2 = stdio_agent(cmd, tmp_path, "agent-2")
        with err2:
            async with again:
                result = await again.call("charge", ARGS, timeout_s=10)
    got = effects(charges)
    report("f. the server crashes mid-call", "bare", len(got))
    assert len(got) == 2, got
    assert charge_of(result)["id"] == got[1]["id"]


async def test_f_server_crash_mid_call_gateway(tmp_path: Path) -> None:
    charges = tmp_path / "charges.jsonl"
    cmd = gateway_cmd(
        str(tmp_path / "ledger.db"), "--run", "run-f", upstream=payments_cmd(charges, crash_times=1)
    )
    agent, err = stdio_agent(cmd, tmp_path, "gateway")
    with err:
        async with agent:
            # The gateway sees its connection drop mid-call: unknown. It starts the server again,
            # asks find_charge, and answers this very call with the charge found.
            result = await agent.call("charge", ARGS, timeout_s=30)
            again = await agent.call("charge", ARGS, timeout_s=30)
    got = effects(charges)
    report("f. the server crashes mid-call", "gateway", len(got))
    assert len(got) == 1, got
    assert charge_of(result)["id"] == charge_of(again)["id"] == got[0]["id"]
    assert result_meta(result).get("oncely/reconciled") is True, dump(result)
    assert result_meta(again).get("oncely/replayed") is True, dump(again)
    assert_keyed(got[0], again)
    log = (tmp_path / "gateway.stderr").read_text()
    assert "crashing before the answer" in log and "starting it again" in log, log


# --- h. the server answers isError after the charge (its provider's answer was lost) -----------


async def test_h_is_error_after_the_effect_bare(tmp_path: Path) -> None:
    charges = tmp_path / "charges.jsonl"
    agent, err = stdio_agent(payments_cmd(charges, fail_times=1), tmp_path, "agent")
    with err:
        async with agent:
            first = await agent.call("charge", ARGS, timeout_s=10)
            assert first.is_error, dump(first)
            # The model reads the error and asks again.
            result = await agent.call("charge", ARGS, timeout_s=10)
    got = effects(charges)
    report("h. isError after the charge (--is-error-unknown)", "bare", len(got))
    assert len(got) == 2, got
    assert charge_of(result)["id"] == got[1]["id"]


async def test_h_is_error_after_the_effect_gateway(tmp_path: Path) -> None:
    """By default the gateway takes the server's isError at its word (the tool failed, a retry may
    run); `--is-error-unknown charge` makes it an unknown outcome, settled by find_charge."""
    charges = tmp_path / "charges.jsonl"
    db = str(tmp_path / "ledger.db")
    cmd = gateway_cmd(
        db,
        "--run",
        "run-h",
        "--is-error-unknown",
        "charge",
        upstream=payments_cmd(charges, fail_times=1),
    )
    agent, err = stdio_agent(cmd, tmp_path, "gateway")
    with err:
        async with agent:
            result = await agent.call("charge", ARGS, timeout_s=30)
            again = await agent.call("charge", ARGS, timeout_s=30)
    got = effects(charges)
    report("h. isError after the charge (--is-error-unknown)", "gateway", len(got))
    assert len(got) == 1, got
    assert charge_of(result)["id"] == charge_of(again)["id"] == got[0]["id"]
    assert result_meta(result).get("oncely/reconciled") is True, dump(result)


# --- g. the server over Streamable HTTP --------------------------------------------------------


async def test_g_upstream_over_http_bare(tmp_path: Path, procs: Any) -> None:
    charges = tmp_path / "charges.jsonl"
    server = procs.payments_http(charges, 1500, late_times=1)
    async with Agent(server.url) as agent:
        result = await agent.call("charge", ARGS, timeout_s=0.8, retries=20)
    print(*agent.attempts, sep="\n")
    got = effects(charges)
    report("g. client retry, server over HTTP", "bare", len(got))
    assert "timed out" in agent.attempts[0], agent.attempts
    assert_retried_twice_over(got, result, agent.attempts)


async def test_g_upstream_over_http(tmp_path: Path, procs: Any) -> None:
    charges = tmp_path / "charges.jsonl"
    server = procs.payments_http(charges, 1500, late_times=1)
    cmd = gateway_cmd(
        str(tmp_path / "ledger.db"), "--run", "run-g", "--wait", "20000", upstream=server.url
    )
    agent, err = stdio_agent(cmd, tmp_path, "gateway")
    with err:
        async with agent:
            result = await agent.call("charge", ARGS, timeout_s=0.8, retries=20)
            listed = {t.name: t for t in (await agent.list_tools()).tools}
    print(*agent.attempts, sep="\n")
    got = effects(charges)
    report("g. client retry, server over HTTP", "gateway", len(got))
    assert "timed out" in agent.attempts[0], agent.attempts
    assert len(got) == 1, got
    assert charge_of(result)["id"] == got[0]["id"]
    assert result_meta(result).get("oncely/replayed") is True, dump(result)
    assert (listed["charge"].meta or {}).get("oncely/class") == "irreversible-external"
    assert (listed["find_charge"].meta or {}).get("oncely/class") == "read-only"


# --- the wire: raw JSON-RPC lines to the gateway over stdio -------------------------------------


class Raw:
    """The gateway over stdio, spoken to in raw JSON-RPC lines."""

    def __init__(self, cmd: list[str], log: Path) -> None:
        self.err = open(log, "w")  # noqa: SIM115 (closed in close())
        self.p = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
            bufsize=1,
        )
        self.next_id = 100

    def send(self, line: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def recv(self) -> dict[str, Any]:
        assert self.p.stdout is not None
        while True:
            line = self.p.stdout.readline()
            assert line, f"the gateway closed its stdout (exit {self.p.poll()})"
            msg = json.loads(line)
            if "id" in msg:  # skip notifications
                return msg

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send(
            json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        )
        reply = self.recv()
        assert reply["id"] == self.next_id, reply
        return reply

    def initialize(self) -> None:
        init = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        assert "result" in init, init
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def close(self) -> None:
        if self.p.stdin:
            self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait(10)
        self.err.close()


@pytest.fixture
def raw(tmp_path: Path) -> Any:
    charges = tmp_path / "charges.jsonl"
    r = Raw(
        gateway_cmd(str(tmp_path / "ledger.db"), "--run", "r1", upstream=payments_cmd(charges)),
        tmp_path / "gw.log",
    )
    r.charges = charges  # type: ignore[attr-defined]
    yield r
    r.close()


def test_malformed_messages_get_json_rpc_errors(raw: Raw) -> None:
    raw.send("{this is not json")
    parse = raw.recv()
    assert parse["id"] is None and parse["error"]["code"] == -32700, parse
    raw.send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": 5}))
    invalid = raw.recv()
    assert invalid["id"] == 7 and invalid["error"]["code"] == -32600, invalid
    raw.send("[1, 2, 3]")
    assert raw.recv()["error"]["code"] == -32600
    # The session goes on.
    raw.initialize()
    tools = raw.request("tools/list", {})
    assert {"charge", "find_charge", "send_email"} <= {
        t["name"] for t in tools["result"]["tools"]
    }, tools
    raw.send("\x00\x01 garbage after initialize")
    assert raw.recv()["error"]["code"] == -32700
    unknown = raw.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert "error" in unknown or unknown["result"].get("isError"), unknown
    assert raw.p.poll() is None, "the gateway exited"


def test_a_client_key_names_its_intent_across_sessions(tmp_path: Path) -> None:
    """A client that retries with its SEP-3182 key on a new connection (a new session, another
    gateway process, no --run) gets the first call's result."""
    charges = tmp_path / "charges.jsonl"
    results = []
    for n in range(2):
        cmd = gateway_cmd(str(tmp_path / "ledger.db"), upstream=payments_cmd(charges))
        r = Raw(cmd, tmp_path / f"gw{n}.log")
        try:
            r.initialize()
            reply = r.request(
                "tools/call", {"name": "charge", "arguments": ARGS, "idempotencyKey": "7f3c-1"}
            )
            results.append(reply["result"])
        finally:
            r.close()
    got = effects(charges)
    assert len(got) == 1, got
    assert [x["structuredContent"]["charge"]["id"] for x in results] == [got[0]["id"]] * 2
    assert results[1]["_meta"].get("oncely/replayed") is True, results[1]


def test_idempotency_key_in_params_is_the_step(raw: Raw) -> None:
    """SEP-3182 puts a client-chosen key in `params`: two steps with the same arguments are two
    effects, and each one's repeat is a replay."""
    raw.initialize()

    def charge(key: str) -> dict[str, Any]:
        reply = raw.request(
            "tools/call", {"name": "charge", "arguments": ARGS, "idempotencyKey": key}
        )
        assert "result" in reply and not reply["result"].get("isError"), reply
        return reply["result"]

    first, repeat, second = charge("pay-1"), charge("pay-1"), charge("pay-2")
    got = effects(raw.charges)  # type: ignore[attr-defined]
    assert len(got) == 2, got
    assert (
        first["structuredContent"]["charge"]["id"]
        == repeat["structuredContent"]["charge"]["id"]
        == got[0]["id"]
    )
    assert second["structuredContent"]["charge"]["id"] == got[1]["id"]
    assert repeat["_meta"].get("oncely/replayed") is True and not first["_meta"].get(
        "oncely/replayed"
    )
    # Without a step the call is keyed by the run (another key than either step's): one more
    # charge, and its repeat (the memo is ignored by the policy) is a replay.
    plain = raw.request("tools/call", {"name": "charge", "arguments": ARGS})["result"]
    plain_again = raw.request(
        "tools/call", {"name": "charge", "arguments": {**ARGS, "memo": "other"}}
    )["result"]
    assert len(effects(raw.charges)) == 3  # type: ignore[attr-defined]
    assert plain["_meta"]["oncely/key"] not in {
        first["_meta"]["oncely/key"],
        second["_meta"]["oncely/key"],
    }
    assert plain_again["_meta"] == {**plain["_meta"], "oncely/replayed": True}, (plain, plain_again)


def test_the_core_passes_a_read_only_call_through(raw: Raw, tmp_path: Path) -> None:
    """Every tools/call goes to the core; for a read-only tool it says "call the server": the
    server's answer comes back as it is (no oncely marks) and nothing is recorded. Arguments that
    cannot be keyed are the agent's to fix, for every tool: invalid params, nothing called."""
    raw.initialize()
    raw.request("tools/call", {"name": "charge", "arguments": ARGS})
    found = raw.request("tools/call", {"name": "find_charge", "arguments": ARGS})["result"]
    again = raw.request("tools/call", {"name": "find_charge", "arguments": ARGS})["result"]
    assert found["structuredContent"]["found"] is True, found
    # The server's own `_meta` (on 2026-07-28, its `io.modelcontextprotocol/serverInfo`) as it is.
    assert found == again and not any(k.startswith("oncely/") for k in found.get("_meta", {}))
    listed = oncely(
        "ledger", "list", "--json", "--db", str(tmp_path / "ledger.db"), "--scope", "mcp"
    )
    assert listed.returncode == 0, listed.stderr
    assert [e["tool"] for e in json.loads(listed.stdout)] == ["charge"], listed.stdout
    lossy = {**ARGS, "amount_cents": 9007199254740993}
    for tool in ("find_charge", "charge"):
        reply = raw.request("tools/call", {"name": tool, "arguments": lossy})
        assert reply.get("error", {}).get("code") == -32602, reply
        assert "cannot be keyed" in reply["error"]["message"], reply
        assert "9007199254740993" in reply["error"]["message"], reply
    assert len(effects(raw.charges)) == 1  # type: ignore[attr-defined]


# --- malformed messages that a client can match: answered with their own id -------------------


def charge_line(rid: Any, arguments: str, tool: str = "charge") -> str:
    """A raw `tools/call` of `tool`, its arguments given as the JSON text that is sent."""
    head = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call"})
    return head[:-1] + f', "params": {{"name": "{tool}", "arguments": ' + arguments + "}}"


def assert_refused(raw: Raw, line: str, rid: Any, code: int) -> str:
    """Send `line`; its answer is the error `code` with id `rid`, and nothing else came first.
    Returns the error's message."""
    raw.send(line)
    reply = raw.recv()
    assert reply["id"] == rid and "result" not in reply, reply
    assert reply["error"]["code"] == code, reply
    return reply["error"]["message"]


def assert_session_goes_on(raw: Raw) -> None:
    """The same session answers the next valid request, and the gateway still runs."""
    tools = raw.request("tools/list", {})
    assert "charge" in {t["name"] for t in tools["result"]["tools"]}, tools
    assert raw.p.poll() is None, "the gateway exited"


def test_lone_surrogate_in_arguments_is_answered_with_its_id(raw: Raw) -> None:
    r"""`"\ud800"` is grammatical JSON but not text (half of a UTF-16 pair): invalid params naming
    it and where it is, with the request's id (a parse error with id null would leave the client
    waiting for its answer); nothing is called."""
    raw.initialize()
    lone = json.dumps({**ARGS, "memo": "order \ud800 42"})
    assert "\\ud800" in lone
    message = assert_refused(raw, charge_line(501, lone), 501, -32602)
    assert "lone surrogate \\ud800" in message and "/params/arguments/memo" in message, message
    # A low half alone, a string id, a read-only tool's call: the same.
    low = json.dumps({**ARGS, "customer": "\udc00"})
    line = charge_line("call-502", low, "find_charge")
    message = assert_refused(raw, line, "call-502", -32602)
    assert "lone surrogate \\udc00" in message and "/params/arguments/customer" in message
    assert_session_goes_on(raw)
    assert effects(raw.charges) == []  # type: ignore[attr-defined]


def test_number_out_of_range_in_arguments_is_answered_with_its_id(raw: Raw) -> None:
    raw.initialize()
    for rid, number in ((511, "1e400"), (512, "-2.5E+999"), (513, "9" * 400)):
        arguments = '{"customer": "cus_1", "amount_cents": ' + number + ', "memo": "m"}'
        message = assert_refused(raw, charge_line(rid, arguments), rid, -32602)
        assert "number out of range" in message, message
        assert "/params/arguments/amount_cents" in message, message
    assert_session_goes_on(raw)
    assert effects(raw.charges) == []  # type: ignore[attr-defined]


def test_deep_arguments_are_answered_with_their_id(raw: Raw) -> None:
    """Nested deeper than serde_json's recursion limit (127 levels in a message): invalid params
    with the id, read without recursion however deep (here 100 000 levels)."""
    raw.initialize()
    for rid, depth in ((521, 130), (522, 100_000)):
        memo = "[" * depth + "1" + "]" * depth
        arguments = '{"customer": "cus_1", "amount_cents": 1000, "memo": ' + memo + "}"
        message = assert_refused(raw, charge_line(rid, arguments), rid, -32602)
        assert "nested deeper than 127 levels" in message, message
        assert "/params/arguments/memo/0/0" in message, message
    assert_session_goes_on(raw)
    assert effects(raw.charges) == []  # type: ignore[attr-defined]


def test_null_true_object_ids_are_answered(raw: Raw) -> None:
    """A message with an `id` member is a request, whatever the id: one that is not a string or
    a number gets invalid request with id null (JSON-RPC 2.0), not silence as a notification."""
    raw.initialize()
    for rid in (None, True, {"n": 1}, [1]):
        line = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": {}})
        message = assert_refused(raw, line, None, -32600)
        assert "id must be a string or an integer" in message, message
        # A charge with that id is not called either, however readable its arguments.
        message = assert_refused(raw, charge_line(rid, json.dumps(ARGS)), None, -32600)
        assert "id must be a string or an integer" in message, message
    # With unrepresentable arguments too.
    assert_refused(raw, charge_line(None, '{"amount_cents": 1e400}'), None, -32600)
    assert_session_goes_on(raw)
    assert effects(raw.charges) == []  # type: ignore[attr-defined]
    # Not grammatical JSON: a parse error, id null, even with an id in sight.
    assert_refused(raw, charge_line(531, json.dumps(ARGS)) + ",", None, -32700)
    assert_session_goes_on(raw)


def http_post(
    url: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """POST `body` to the MCP endpoint as a client does: (status, headers, body)."""
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    req = urllib.request.Request(url, data=body, headers={**sent, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def sse_messages(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an SSE response's `data:` lines."""
    lines = body.decode().splitlines()
    return [json.loads(x[5:]) for x in lines if x.startswith("data:") and x[5:].strip()]


def test_http_bad_body_is_a_json_rpc_error(tmp_path: Path, procs: Any) -> None:
    """Over `--listen` every malformed POST is answered with a JSON-RPC error body (JSON, the
    right code, the request's id when it can be read): the gateway's own refusals with HTTP 400,
    the SDK's transport errors with their status (406, 415, 404, 400); the session goes on."""
    charges = tmp_path / "charges.jsonl"
    gw = procs.gateway_http(
        str(tmp_path / "ledger.db"), "--run", "r1", upstream=payments_cmd(charges)
    )
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw-http", "version": "0"},
        },
    }
    status, headers, body = http_post(gw.url, json.dumps(init).encode())
    assert status == 200, (status, body)
    assert [m.get("id") for m in sse_messages(body)] == [1], body
    session = {"Mcp-Session-Id": headers["mcp-session-id"], "MCP-Protocol-Version": "2025-06-18"}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    status, _, body = http_post(gw.url, json.dumps(initialized).encode(), session)
    assert status == 202, (status, body)

    def refused(
        body: bytes, rid: Any, code: int, status: int = 400, headers: dict[str, str] | None = None
    ) -> str:
        got, got_headers, answer = http_post(gw.url, body, {**session, **(headers or {})})
        assert got == status, (got, answer)
        assert got_headers["content-type"].startswith("application/json"), got_headers
        error = json.loads(answer)
        assert error["jsonrpc"] == "2.0" and error["id"] == rid, error
        assert error["error"]["code"] == code, error
        return error["error"]["message"]

    lone = json.dumps({**ARGS, "memo": "\ud800"})
    message = refused(charge_line(41, lone).encode(), 41, -32602)
    assert "lone surrogate \\ud800" in message and "/params/arguments/memo" in message, message
    refused(charge_line("n-42", '{"amount_cents": 1e400}').encode(), "n-42", -32602)
    deep = "[" * 200 + "]" * 200
    message = refused(charge_line(43, '{"memo": ' + deep + "}").encode(), 43, -32602)
    assert "nested deeper than 127 levels" in message, message
    for rid in (None, True, {"n": 1}):
        line = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list"})
        refused(line.encode(), None, -32600)
    refused(b"{this is not json", None, -32700)
    refused(b"", None, -32700)
    refused(b"[1, 2]", None, -32600)
    refused(
        json.dumps({"jsonrpc": "2.0", "id": 44, "method": "tools/call", "params": 5}).encode(),
        44,
        -32600,
    )
    # The SDK's transport errors, with the request's id: wrong Content-Type, wrong Accept, an
    # unknown session, none.
    tools_list = json.dumps({"jsonrpc": "2.0", "id": 45, "method": "tools/list"}).encode()
    message = refused(tools_list, 45, -32600, 415, {"Content-Type": "text/plain"})
    assert "Content-Type" in message, message
    refused(tools_list, 45, -32600, 406, {"Accept": "application/json"})
    refused(tools_list, 45, -32600, 404, {"Mcp-Session-Id": "no-such-session"})
    status, _, answer = http_post(gw.url, tools_list, {"MCP-Protocol-Version": "2025-06-18"})
    assert status == 400 and json.loads(answer)["id"] == 45, (status, answer)
    # The session goes on, and nothing was charged.
    status, _, body = http_post(gw.url, tools_list, session)
    assert status == 200, (status, body)
    (listed,) = sse_messages(body)
    assert listed["id"] == 45 and "charge" in {t["name"] for t in listed["result"]["tools"]}, listed
    assert effects(charges) == []
