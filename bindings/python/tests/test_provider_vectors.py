"""tests/vectors/provider.json through this package's wrappers of the core's ``provider``
interface (oncely.provider): every host passes the same inputs and must get these outputs."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from helpers import effect_error_of

import oncely
from oncely import provider
from oncely.types import (
    HandlerAnswer,
    HttpRequest,
    HttpResponse,
    KeyedCall,
    McpCall,
    Operation,
    Pass,
    Refusal,
    Returned,
    ToolFailure,
    Unrecordable,
)

Vectors = Callable[[str], Any]


def _body(d: dict[str, Any]) -> bytes:
    if "body64" in d:
        return base64.b64decode(d["body64"])
    return str(d["body"]).encode("utf-8")


def _request(r: dict[str, Any]) -> Any:
    if "http" in r:
        h = r["http"]
        return HttpRequest(
            h["method"], h["path"], h["query"], h["contentType"], _body(h), list(h["keys"])
        )
    m = r["mcp"]
    return McpCall(m["arguments"], m["meta"], m["paramsKey"])


def _refusal(got: Refusal, want: dict[str, Any]) -> None:
    assert got.status == want["status"]
    assert got.kind == want["kind"]
    assert got.pointer == want["pointer"]
    assert got.part == want["part"]
    assert got.retry_after_s == want["retryAfterS"]
    if "title" in want:
        assert (got.title, got.detail) == (want["title"], want["detail"])
    if "problem" in want:
        assert got.problem_json == want["problem"]
    assert json.loads(got.problem_json)["status"] == got.status


def test_admit(vectors: Vectors) -> None:
    cases = vectors("provider.json")["admit"]
    assert len(cases) >= 30
    for c in cases:
        o = c["operation"]
        op = Operation(o["tool"], o["policy"], o["required"])
        want = c["expect"]
        if "error" in want:
            with pytest.raises(provider.ProviderConfigError) as e:
                provider.admit(c["scope"], op, _request(c["request"]))
            assert str(e.value).endswith(want["error"]), c["name"]
            continue
        got = provider.admit(c["scope"], op, _request(c["request"]))
        if "pass" in want:
            assert isinstance(got, Pass), c["name"]
        elif "refuse" in want:
            assert isinstance(got, Refusal), c["name"]
            _refusal(got, want["refuse"])
        else:
            k = want["keyed"]
            assert isinstance(got, KeyedCall), c["name"]
            assert (got.client_key, got.key) == (k["clientKey"], k["key"]), c["name"]
            assert got.intent.tool == k["tool"] and got.intent.args_json == k["args"], c["name"]
            assert (got.intent.scope, got.intent.run_id, got.intent.step_id) == (c["scope"], "", "")
            assert got.policy.key is not None and got.policy.key.ignore == k["ignore"], c["name"]
            # The key is the one the ledger derives for that intent under that policy.
            assert got.key == oncely.derive_key(
                scope=c["scope"], run="", step="", tool=k["tool"], args=k["args"],
                policy=got.policy,
            )  # fmt: skip


def _check_recording(got: Any, c: dict[str, Any]) -> None:
    want = c["expect"]
    if "returned" in want:
        assert got == Returned(want["returned"]), c["name"]
    elif "failed" in want:
        f = want["failed"]
        assert got == ToolFailure(f["definite"], f["reason"]), c["name"]
    else:
        assert isinstance(got, Unrecordable), c["name"]


def test_record(vectors: Vectors) -> None:
    for c in vectors("provider.json")["record"]:
        r = c["response"]
        got = provider.record_http(
            HttpResponse(r["status"], [tuple(h) for h in r["headers"]], _body(r))  # type: ignore[misc]
        )
        _check_recording(got, c)


def test_oversized(vectors: Vectors) -> None:
    for c in vectors("provider.json")["oversized"]:
        r = provider.oversized(c["limitBytes"])
        want = c["expect"]
        assert (r.status, r.kind, r.retry_after_s, r.problem_json) == (
            want["status"], want["kind"], want["retryAfterS"], want["problem"],
        ), c["name"]  # fmt: skip


def test_record_mcp(vectors: Vectors) -> None:
    for c in vectors("provider.json")["recordMcp"]:
        got = provider.record_mcp(c["result"])
        _check_recording(got, c)


def test_replay(vectors: Vectors) -> None:
    for c in vectors("provider.json")["replay"]:
        got = provider.replay_http(c["recorded"])
        want = c["expect"]
        assert got.status == want["status"], c["name"]
        assert [list(h) for h in got.headers] == want["headers"], c["name"]
        assert got.body == _body(want), c["name"]


def _error(e: dict[str, Any]) -> Any:
    (tag, v), = e.items()  # fmt: skip
    return effect_error_of(tag, v)


def test_refuse(vectors: Vectors) -> None:
    cases = vectors("provider.json")["refuse"]
    assert {next(iter(c["error"])) for c in cases} >= {"conflict", "in-progress", "ledger"}
    for c in cases:
        got = provider.refuse(_error(c["error"]), c["handlerRan"])
        if "handler" in c["expect"]:
            assert isinstance(got, HandlerAnswer), c["name"]
        else:
            assert isinstance(got, Refusal), c["name"]
            _refusal(got, c["expect"])


def test_the_cores_retry_after_ms_reaches_the_typed_errors() -> None:
    """busy.retry-after-ms and doubt.retry-after-ms reach InProgressError and InDoubtError as the
    package raises them (none where the core does not know it)."""
    from oncely._machine import _error

    busy = _error(effect_error_of("in-progress", {"key": "k", "owner": "w1", "retryAfterMs": 2300}))
    assert isinstance(busy, oncely.InProgressError)
    assert (busy.key, busy.owner, busy.retry_after_ms) == ("k", "w1", 2300)
    due = {"key": "k", "reason": "timed out", "retryAfterMs": 10_000}
    doubt = _error(effect_error_of("in-doubt", due))
    assert isinstance(doubt, oncely.InDoubtError)
    assert (doubt.key, doubt.reason, doubt.retry_after_ms) == ("k", "timed out", 10_000)
    assert "next in 10 s" in str(doubt)
    unknown = _error(effect_error_of("in-doubt", {**due, "retryAfterMs": None}))
    assert isinstance(unknown, oncely.InDoubtError) and unknown.retry_after_ms is None
