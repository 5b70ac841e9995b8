"""oncely.adapters.http against real httpx and requests clients and a real HTTP server (the
standard library's, on 127.0.0.1): the key in the Idempotency-Key header, and every kind of
answer in the ledger's vocabulary."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
from payments import counted

import oncely
from oncely.adapters.http import (
    DEFAULT_NOT_PERFORMED,
    NotPerformed,
    OutcomeUnknown,
    arequest,
    classify,
    headers_with_key,
    request,
)


class Provider:
    """A refunds endpoint. ``dedup``: it deduplicates by Idempotency-Key (a repeat gets the
    first answer). ``script``: (status, delay) for the next requests; a 2xx is performed (then
    answered after ``delay`` seconds: a client that gave up has lost the answer), anything else
    is not."""

    def __init__(self, dedup: bool) -> None:
        self.dedup = dedup
        self.script: list[tuple[int, float]] = []
        self.keys: list[str | None] = []
        self.performed: list[dict[str, Any]] = []
        self.answers: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()

    def handle(self, key: str | None, body: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
        with self.lock:
            self.keys.append(key)
            if self.dedup and key in self.answers:
                return 200, self.answers[key], 0
            status, delay = self.script.pop(0) if self.script else (200, 0)
            if not 200 <= status < 300:
                return status, {"error": f"status {status}"}, delay
            refund = {"refund_id": f"re_{len(self.performed) + 1}", **body}
            self.performed.append(refund)
            if key is not None:
                self.answers[key] = refund
            return status, refund, delay


@pytest.fixture
def provider() -> Iterator[tuple[Provider, str]]:
    p = Provider(dedup=True)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
            status, answer, delay = p.handle(self.headers.get("Idempotency-Key"), body)
            time.sleep(delay)
            data = json.dumps(answer).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield p, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[oncely.Ledger]:
    with oncely.Ledger.sqlite(tmp_path / "ledger.db", owner="w1") as ledger:
        yield ledger


@pytest.fixture(params=["httpx", "requests"])
def client(request: pytest.FixtureRequest) -> Iterator[Any]:
    c: Any = httpx.Client() if request.param == "httpx" else requests.Session()
    with c:
        yield c


PROVIDER_IDEMPOTENT = {"class": "irreversible-external", "reconcile": "provider-idempotent"}
MANUAL = {"class": "irreversible-external", "reconcile": "manual"}


def test_statuses_are_read_as_the_shared_vectors_say(vectors: Callable[[str], Any]) -> None:
    """tests/vectors/http.json: the same table as JavaScript's oncely/fetch."""
    doc = vectors("http.json")
    assert sorted(DEFAULT_NOT_PERFORMED) == doc["notPerformed"]
    assert len(doc["cases"]) > 40
    for case in doc["cases"]:
        assert classify(case["status"]) == case["outcome"], case
    assert classify(409, {409}) == "not-performed"
    assert classify(404, {402}) == "unknown"


def test_a_lost_answer_is_reconciled_by_sending_the_same_key(
    provider: tuple[Provider, str], client: Any, ledger: oncely.Ledger
) -> None:
    p, url = provider
    p.script = [(200, 1.0)]  # performed, answered after the client gave up

    @ledger.tool(policy=PROVIDER_IDEMPOTENT)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> Any:
        body = {"charge_id": charge_id, "amount": amount}
        r = request(client, "POST", f"{url}/refunds", json=body, key=idempotency_key, timeout=0.3)
        return r.json()

    with oncely.context(scope="acme", run="conversation-7", step="refund-1"):
        r = refund.effect("ch_1", 500)
        key = refund.key("ch_1", 500)
    counted(
        f"http ({type(client).__module__}): the provider performed {len(p.performed)} refund(s)"
    )
    assert r.reconciled and r.value["refund_id"] == "re_1"
    assert len(p.performed) == 1
    assert p.keys == [key, key]  # the key went out as Idempotency-Key, twice
    assert ledger.get("acme", key).state is oncely.EntryState.DONE  # type: ignore[union-attr]


def test_a_not_performed_status_is_a_definite_failure(
    provider: tuple[Provider, str], client: Any, ledger: oncely.Ledger
) -> None:
    p, url = provider
    p.script = [(402, 0)]

    @ledger.tool(policy=PROVIDER_IDEMPOTENT)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> Any:
        r = request(
            client, "POST", f"{url}/refunds", json={"charge_id": charge_id}, key=idempotency_key
        )
        return r.json()

    with oncely.context(scope="acme", run="conversation-7", step="refund-1"):
        with pytest.raises(oncely.ToolFailedError, match="HTTP 402: not performed") as e:
            refund("ch_1", 500)
        assert isinstance(e.value.__cause__, NotPerformed)
        assert e.value.__cause__.status == 402
        assert ledger.get("acme", refund.key("ch_1", 500)).state is oncely.EntryState.FAILED  # type: ignore[union-attr]
        assert p.performed == []
        # It did not happen, so the same intent may run again: now it is performed.
        assert refund("ch_1", 500)["refund_id"] == "re_1"
    assert len(p.keys) == 2


@pytest.mark.parametrize("status", [500, 503, 409])
def test_other_statuses_are_unknown_and_never_sent_again(
    provider: tuple[Provider, str], client: Any, ledger: oncely.Ledger, status: int
) -> None:
    p, url = provider
    p.script = [(status, 0)]

    @ledger.tool(policy=MANUAL)
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> Any:
        return request(
            client, "POST", f"{url}/refunds", json={"c": charge_id}, key=idempotency_key
        ).json()

    with oncely.context(scope="acme", run="conversation-7", step="refund-1"):
        with pytest.raises((oncely.InDoubtError, oncely.EscalatedError), match=f"HTTP {status}"):
            refund("ch_1", 500)
        with pytest.raises((oncely.InDoubtError, oncely.EscalatedError)):
            refund("ch_1", 500)  # the repeat is not sent
    assert len(p.keys) == 1


def test_the_not_performed_statuses_are_configurable(
    provider: tuple[Provider, str], client: Any
) -> None:
    p, url = provider
    p.script = [(409, 0), (409, 0), (404, 0)]
    with pytest.raises(OutcomeUnknown) as unknown:
        request(client, "POST", f"{url}/refunds", json={}, key="k1")
    assert unknown.value.status == 409 and isinstance(unknown.value, oncely.AmbiguousFailure)
    with pytest.raises(NotPerformed) as refused:
        request(client, "POST", f"{url}/refunds", json={}, key="k1", not_performed={409})
    assert isinstance(refused.value, oncely.DefiniteFailure)
    with pytest.raises(OutcomeUnknown):
        request(client, "POST", f"{url}/refunds", json={}, key="k1", not_performed={409})  # 404
    assert p.keys == ["k1", "k1", "k1"]


def test_timeouts_and_connection_errors_are_unknown(
    provider: tuple[Provider, str], client: Any
) -> None:
    p, url = provider
    p.script = [(200, 1.0)]
    with pytest.raises(OutcomeUnknown, match="timeout") as e:
        request(client, "POST", f"{url}/refunds", json={}, key="k1", timeout=0.2)
    assert e.value.status is None
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(OutcomeUnknown, match="connection"):
        request(client, "POST", f"http://127.0.0.1:{port}/refunds", json={}, key="k2", timeout=2)


def test_the_key_and_the_timeout_come_from_the_current_call(
    provider: tuple[Provider, str], client: Any, ledger: oncely.Ledger
) -> None:
    p, url = provider
    p.script = [(200, 3.0)]

    # No key, no timeout given: the call's key, and the time left before its deadline.
    @ledger.tool(policy={**MANUAL, "maxCallMs": 400})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> Any:
        return request(client, "POST", f"{url}/refunds", json={"c": charge_id}).json()

    start = time.monotonic()
    with oncely.context(scope="acme", run="conversation-7", step="refund-1"):
        with pytest.raises((oncely.InDoubtError, oncely.EscalatedError), match="timeout"):
            refund("ch_1", 500)
        key = refund.key("ch_1", 500)
    assert time.monotonic() - start < 2.5
    assert p.keys == [key]
    with pytest.raises(LookupError, match="key"):
        request(client, "POST", f"{url}/refunds", json={})  # outside a call, no key given
    assert headers_with_key({"A": "b"}, key="k") == {"A": "b", "Idempotency-Key": "k"}


def test_async_httpx(provider: tuple[Provider, str], ledger: oncely.Ledger) -> None:
    p, url = provider
    p.script = [(200, 1.0)]

    async def main() -> Any:
        async with httpx.AsyncClient() as client:

            @ledger.tool(policy=PROVIDER_IDEMPOTENT)
            async def refund(charge_id: str, amount: int, *, idempotency_key: str) -> Any:
                r = await arequest(client, "POST", f"{url}/refunds", json={"charge_id": charge_id},
                                   key=idempotency_key, timeout=0.3)  # fmt: skip
                return r.json()

            with oncely.context(scope="acme", run="conversation-7", step="refund-1"):
                return await refund.effect("ch_1", 500)

    r = asyncio.run(main())
    assert r.reconciled and r.value["refund_id"] == "re_1"
    assert len(p.performed) == 1 and len(p.keys) == 2 and p.keys[0] == p.keys[1] == r.key
