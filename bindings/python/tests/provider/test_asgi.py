"""oncely.provider.asgi in real servers: a Starlette app and a FastAPI app (tests/provider/
provider_app.py) run by uvicorn in their own processes, driven by a real httpx client. The
effects the handlers perform are counted in a file, from outside the server."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from harness import WAIT_S, Proc, effects, uvicorn, wait_for

import oncely
from oncely.provider import ProviderConfigError
from oncely.provider.asgi import IdempotencyMiddleware, Route, Router, compile_template


class Server:
    def __init__(self, proc: Proc, tmp: Path) -> None:
        self.proc, self.tmp = proc, tmp
        self.effects_file = tmp / "effects.jsonl"
        self.gates = tmp / "gates"
        self.url = proc.url

    def effects(self, key: str | None = None) -> list[dict[str, Any]]:
        return [e for e in effects(self.effects_file) if key is None or e["client_key"] == key]

    def arrived(self, key: str) -> int:
        """How many requests with the key reached the server (before their ledger call)."""
        rows = effects(self.tmp / "arrived.jsonl")
        return sum(1 for r in rows if r["key"] == key)

    def entered(self, gate: str) -> bool:
        return (self.gates / f"{gate}.entered").exists()

    def release(self, gate: str) -> None:
        (self.gates / f"{gate}.release").write_text("1")


@pytest.fixture(scope="module", params=["starlette", "fastapi"])
def server(request: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp(f"asgi-{request.param}")
    (tmp / "gates").mkdir()
    env = {
        "ONCELY_APP": request.param,
        "ONCELY_LEDGER": str(tmp / "ledger.db"),
        "ONCELY_EFFECTS": str(tmp / "effects.jsonl"),
        "ONCELY_GATES": str(tmp / "gates"),
    }
    proc = uvicorn("provider_app:app", tmp, env, name=request.param)
    try:
        yield Server(proc, tmp)
    finally:
        proc.stop()
        print(proc.output())


def new_key() -> str:
    return f"k-{uuid.uuid4()}"


JSON = {"content-type": "application/json"}


def post(url: str, body: bytes, key: str | None, timeout: float = 30.0, **headers: str) -> Any:
    h = {**JSON, **headers}
    if key is not None:
        h["idempotency-key"] = key
    return httpx.post(url, content=body, headers=h, timeout=timeout)


def problem(r: httpx.Response) -> dict[str, Any]:
    assert r.headers["content-type"] == "application/problem+json", r.text
    doc: dict[str, Any] = json.loads(r.content)
    assert doc["status"] == r.status_code
    return doc


def kind(r: httpx.Response) -> str:
    return str(problem(r)["type"]).rsplit("#", 1)[1]


def until_answered(send: Any, what: str) -> httpx.Response:
    """Send again while the answer is 409 request-in-progress (checking its Retry-After)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        r: httpx.Response = send()
        if r.status_code != 409 or kind(r) != "request-in-progress":
            return r
        assert int(r.headers["retry-after"]) >= 1
        if time.monotonic() > deadline:
            raise AssertionError(f"still in progress after {WAIT_S}s: {what}")
        time.sleep(0.05)


def test_a_client_timeout_then_a_retry_gets_the_one_response_replayed(server: Server) -> None:
    key = new_key()
    url = f"{server.url}/refunds/ch_1"
    body = b'{"amount":500,"reason":"duplicate"}'
    with pytest.raises(httpx.ReadTimeout):
        post(url, body, key, timeout=0.5, **{"x-test-delay": "2"})
    # The retry: the same request, members reordered and spaced, 500 written as 5e2.
    again = b'{ "reason" : "duplicate",\n  "amount" : 5e2 }'
    r = until_answered(lambda: post(url, again, key), "the slow refund")
    assert r.status_code == 201
    assert r.headers["idempotent-replayed"] == "true"
    assert r.headers["location"].startswith("/refunds/re_")
    assert "x-request-id" not in r.headers  # not a stored header field
    [effect] = server.effects(key)  # the handler ran once
    assert r.content == effect["answer"].encode()  # byte for byte what the handler answered
    third = post(url, body, key)
    assert (third.status_code, third.content) == (201, r.content)
    assert third.headers["idempotent-replayed"] == "true"
    assert len(server.effects(key)) == 1


def test_a_fresh_answer_is_the_handlers_own_and_a_repeat_replays_it(server: Server) -> None:
    key = new_key()
    url = f"{server.url}/refunds/ch_2"
    first = post(url, b'{"amount":100}', key)
    assert first.status_code == 201
    assert "idempotent-replayed" not in first.headers
    assert first.headers["x-request-id"]  # every header of the handler's response
    second = post(url, b'{"amount": 100.0}', key)
    assert second.status_code == 201 and second.content == first.content
    assert second.headers["idempotent-replayed"] == "true"
    assert second.headers["content-length"] == str(len(first.content))
    # Another tenant (scope) with the same key: another request.
    other = post(url, b'{"amount":100}', key, **{"x-tenant": "acct_2"})
    assert other.status_code == 201 and "idempotent-replayed" not in other.headers
    assert len(server.effects(key)) == 2


def test_a_race_of_two_runs_the_handler_once_the_other_gets_409(server: Server) -> None:
    key, gate = new_key(), f"g-{uuid.uuid4()}"
    url = f"{server.url}/refunds/ch_3"
    body = b'{"amount":700}'
    got: dict[str, httpx.Response] = {}
    first = threading.Thread(
        target=lambda: got.setdefault("a", post(url, body, key, **{"x-test-gate": gate}))
    )
    first.start()
    try:
        wait_for(lambda: server.entered(gate), WAIT_S, "the first request's handler")
        b = post(url, body, key)
        assert b.status_code == 409
        doc = problem(b)
        assert kind(b) == "request-in-progress"
        assert int(b.headers["retry-after"]) >= 1
        assert "pointer" not in doc
    finally:
        server.release(gate)
        first.join(WAIT_S)
    a = got["a"]
    assert a.status_code == 201 and "idempotent-replayed" not in a.headers
    again = post(url, body, key)
    assert again.content == a.content and again.headers["idempotent-replayed"] == "true"
    assert len(server.effects(key)) == 1


def test_an_in_flight_duplicates_retry_after_is_within_twice_the_time_left(server: Server) -> None:
    """The core tells a duplicate to look again as long as the first request has run (not when
    its lease would end): a request of 3 s asked again after about 1 s gets `Retry-After` within
    twice the time it still took."""
    key = new_key()
    url = f"{server.url}/refunds/ch_9"
    body = b'{"amount":900}'
    done: dict[str, float] = {}

    def first() -> None:
        post(url, body, key, **{"x-test-delay": "3"})
        done["at"] = time.monotonic()

    t = threading.Thread(target=first)
    t.start()
    try:
        time.sleep(1.0)
        b = post(url, body, key)
        asked = time.monotonic()
        assert (b.status_code, kind(b)) == (409, "request-in-progress"), b.text
    finally:
        t.join(WAIT_S)
    left = done["at"] - asked
    retry_after = int(b.headers["retry-after"])
    assert 1 <= retry_after <= 2 * left, (retry_after, left)
    assert len(server.effects(key)) == 1


def test_a_duplicate_on_a_waiting_route_waits_and_gets_the_replay(server: Server) -> None:
    key, gate = new_key(), f"g-{uuid.uuid4()}"
    url = f"{server.url}/slow-refunds/ch_4"
    body = b'{"amount":800}'
    got: dict[str, httpx.Response] = {}
    first = threading.Thread(
        target=lambda: got.setdefault("a", post(url, body, key, **{"x-test-gate": gate}))
    )
    first.start()
    wait_for(lambda: server.entered(gate), WAIT_S, "the first request's handler")
    second = threading.Thread(target=lambda: got.setdefault("b", post(url, body, key)))
    second.start()
    try:
        wait_for(lambda: server.arrived(key) == 2, WAIT_S, "the duplicate to reach the server")
        assert "b" not in got  # it waits while the first holds the key
    finally:
        server.release(gate)
        first.join(WAIT_S)
        second.join(WAIT_S)
    a, b = got["a"], got["b"]
    assert a.status_code == b.status_code == 201
    assert b.content == a.content and b.headers["idempotent-replayed"] == "true"
    assert len(server.effects(key)) == 1


def test_the_same_key_with_another_body_is_422_naming_the_pointer(server: Server) -> None:
    key = new_key()
    url = f"{server.url}/refunds/ch_5"
    assert post(url, b'{"amount":500,"reason":"x"}', key).status_code == 201
    r = post(url, b'{"amount":501,"reason":"x"}', key)
    assert r.status_code == 422
    doc = problem(r)
    assert (doc["pointer"], doc["part"]) == ("/amount", "body")
    assert kind(r) == "idempotency-key-reused"
    # Another path with the same key and route: the path differs.
    r = post(f"{server.url}/refunds/ch_6", b'{"amount":500,"reason":"x"}', key)
    assert r.status_code == 422 and problem(r)["part"] == "path"
    assert len(server.effects(key)) == 1


def test_a_handler_exception_leaves_the_key_in_doubt_never_run_again(server: Server) -> None:
    key = new_key()
    first = post(f"{server.url}/boom", b"{}", key)
    assert first.status_code == 500  # the handler's own failure, through the server
    for _ in range(2):
        r = post(f"{server.url}/boom", b"{}", key)
        assert r.status_code == 409
        # The default policy is reconciled manually: a person settles it.
        assert kind(r) == "outcome-escalated"
        assert "retry-after" not in r.headers
    assert len(server.effects(key)) == 1
    # With a lookup reconciler that cannot tell yet, the key stays in doubt.
    key = new_key()
    assert post(f"{server.url}/boom-lookup", b"{}", key).status_code == 500
    for _ in range(2):
        r = post(f"{server.url}/boom-lookup", b"{}", key)
        # In doubt with its next reconciliation due later: the core answers 409 with
        # Retry-After until then (request-in-progress), or outcome-in-doubt.
        assert r.status_code == 409, r.text
        assert kind(r) in ("outcome-in-doubt", "request-in-progress"), r.text
        if kind(r) == "request-in-progress":
            assert int(r.headers["retry-after"]) >= 1
    assert len(server.effects(key)) == 1


def test_a_handler_cancelled_at_its_deadline_has_no_answer_the_refusal_is_sent(
    server: Server,
) -> None:
    key = new_key()
    first = post(f"{server.url}/overdue", b"{}", key)
    # Not the handler's answer (it has none: cancelled at maxCallMs), nor a crash of the
    # middleware: the core's refusal, and the key is in doubt.
    assert first.status_code == 409, first.text
    assert kind(first) in ("outcome-escalated", "outcome-in-doubt"), first.text
    again = post(f"{server.url}/overdue", b"{}", key)
    assert again.status_code == 409, again.text
    assert kind(again) in ("outcome-escalated", "outcome-in-doubt", "request-in-progress")
    assert len(server.effects(key)) == 1


def test_a_5xx_answer_is_the_first_callers_and_then_in_doubt(server: Server) -> None:
    key = new_key()
    first = post(f"{server.url}/unavailable", b"", key)
    assert first.status_code == 503 and first.json() == {"error": "upstream down"}
    r = post(f"{server.url}/unavailable", b"", key)
    assert r.status_code == 409 and kind(r) in ("outcome-escalated", "outcome-in-doubt")
    assert len(server.effects(key)) == 1


def test_a_required_key_is_400_when_missing(server: Server) -> None:
    r = post(f"{server.url}/required", b"{}", None)
    assert r.status_code == 400 and kind(r) == "idempotency-key-missing"
    r = post(f"{server.url}/required", b"{}", "bad key \x7f")
    assert r.status_code == 400 and kind(r) == "idempotency-key-invalid"
    assert server.effects() == [] or all(e["kind"] != "required" for e in server.effects())
    key = new_key()
    assert post(f"{server.url}/required", b"{}", key).status_code == 200
    assert len(server.effects(key)) == 1


def test_get_and_unkeyed_requests_pass_through(server: Server) -> None:
    key = new_key()
    for _ in range(2):
        r = httpx.get(f"{server.url}/refunds/ch_7", headers={"idempotency-key": key}, timeout=30)
        assert r.status_code == 200 and "idempotent-replayed" not in r.headers
    url = f"{server.url}/refunds/ch_7"
    a, b = post(url, b'{"amount":1}', None), post(url, b'{"amount":1}', None)
    assert a.status_code == b.status_code == 201
    assert "idempotent-replayed" not in b.headers and a.content != b.content


def test_a_body_that_is_not_json_replays_exactly_and_a_large_one_is_413(server: Server) -> None:
    key = new_key()
    url = f"{server.url}/files/a/b.bin"
    data = bytes(range(256)) * 4
    h = {"idempotency-key": key, "content-type": "application/octet-stream"}
    first = httpx.put(url, content=data, headers=h, timeout=30)
    second = httpx.put(url, content=data, headers=h, timeout=30)
    assert first.status_code == second.status_code == 200
    assert second.content == first.content == data
    assert second.headers["idempotent-replayed"] == "true"
    r = httpx.put(url, content=data[:-1], headers=h, timeout=30)
    assert r.status_code == 422 and problem(r)["part"] == "body"
    assert len(server.effects(key)) == 1
    big = new_key()
    r = httpx.put(url, content=b"x" * ((1 << 20) + 1), headers={"idempotency-key": big}, timeout=30)
    assert r.status_code == 413 and kind(r) == "request-too-large"
    assert server.effects(big) == []


def test_a_chunked_body_over_the_limit_is_413_and_the_handler_does_not_run(
    server: Server,
) -> None:
    key = new_key()

    def chunks() -> Iterator[bytes]:  # no content-length: the middleware counts as it reads
        for _ in range(17):
            yield b"x" * (1 << 16)

    h = {"idempotency-key": key, "content-type": "application/octet-stream"}
    r = httpx.put(f"{server.url}/files/big.bin", content=chunks(), headers=h, timeout=30)
    assert r.request.headers.get("transfer-encoding") == "chunked"
    assert "content-length" not in r.request.headers
    assert r.status_code == 413 and kind(r) == "request-too-large"
    assert server.arrived(key) == 1 and server.effects(key) == []
    # Within the limit, chunked too: it runs (and is replayed).
    small = [b"y" * 1000, b"z" * 1000]
    h["idempotency-key"] = key = new_key()
    a = httpx.put(f"{server.url}/files/small.bin", content=iter(small), headers=h, timeout=30)
    b = httpx.put(f"{server.url}/files/small.bin", content=iter(small), headers=h, timeout=30)
    assert a.status_code == b.status_code == 200 and a.content == b.content == b"".join(small)
    assert b.headers["idempotent-replayed"] == "true"
    assert len(server.effects(key)) == 1


def test_a_keyed_stream_runs_to_its_end_when_its_client_leaves(server: Server) -> None:
    key, gate = new_key(), f"g-{uuid.uuid4()}"
    port = int(server.url.rsplit(":", 1)[1])
    head = (
        f"POST /stream HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nidempotency-key: {key}\r\n"
        f"x-test-gate: {gate}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{{}}"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as s:
        s.sendall(head.encode())
        # The stream sent its first part (buffered by the middleware, not sent): the client
        # leaves now, mid-stream. The server's http.disconnect is not the app's.
        wait_for(lambda: server.entered(gate), WAIT_S, "the stream's first part")
    wait_for(lambda: server.effects(key), WAIT_S, "the stream to reach its end")
    [effect] = server.effects(key)
    assert effect["answer"] == "part-1;part-2;part-3;part-4;part-5;"
    h = {"x-test-gate": gate}
    r = until_answered(lambda: post(f"{server.url}/stream", b"{}", key, **h), "the stream")
    assert r.status_code == 200, r.text
    assert r.headers["idempotent-replayed"] == "true"
    assert r.text == effect["answer"]  # the whole body, not the part before the client left
    assert len(server.effects(key)) == 1


# --- configuration (no server) -----------------------------------------------------------------


async def _app(scope: Any, receive: Any, send: Any) -> None:  # pragma: no cover - never called
    raise AssertionError


def test_templates_match_one_segment_or_the_rest_of_the_path() -> None:
    assert compile_template("/refunds/{charge}").fullmatch("/refunds/ch_1")
    assert not compile_template("/refunds/{charge}").fullmatch("/refunds/ch_1/x")
    assert not compile_template("/refunds/{charge}").fullmatch("/refunds/")
    assert compile_template("/files/{p:path}").fullmatch("/files/a/b/c")
    assert compile_template("/a.b").fullmatch("/a.b") and not compile_template("/a.b").fullmatch(
        "/axb"
    )
    router = Router({"POST /r/{id}": None, "PATCH /r/{id}": Route(tool="patch-r")})
    assert router.match("POST", "/r/1").op.tool == "POST /r/{id}"  # type: ignore[union-attr]
    assert router.match("PATCH", "/r/1").op.tool == "patch-r"  # type: ignore[union-attr]
    assert router.match("GET", "/r/1") is None


@pytest.mark.parametrize(
    "routes",
    [
        {"/refunds": None},
        {"POST refunds": None},
        {"POST /r/{id": None},
        {"POST /r": Route(policy={"reconcile": "provider-idempotent"})},
        {"POST /r": Route(policy={"key": {"only": ["/a"]}})},
        {"POST /r": Route(policy="{not json")},
        {"POST /r": Route(wait_ms=-1)},
        {},
    ],
)
def test_a_misconfigured_route_is_refused_at_once(routes: Any, tmp_path: Path) -> None:
    ledger = oncely.Ledger.sqlite(tmp_path / "l.db")
    with pytest.raises(ProviderConfigError):
        IdempotencyMiddleware(_app, ledger=ledger, scope="acct", routes=routes)
    with pytest.raises(ProviderConfigError):
        IdempotencyMiddleware(_app, ledger=ledger, scope="", routes={"POST /r": None})
    ledger.close()
