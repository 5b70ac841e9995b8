"""A refunds API with oncely's ASGI middleware, as a Starlette or a FastAPI app, for the provider
tests (run by uvicorn in its own process):

    ONCELY_APP=starlette|fastapi ONCELY_LEDGER=ledger.db ONCELY_EFFECTS=effects.jsonl \\
    ONCELY_GATES=gates/ python -m uvicorn provider_app:app --port N

Every effect the handlers perform is one fsynced line of ``$ONCELY_EFFECTS`` (with the body it
answered), read by the tests from outside this process. Test headers (never part of the key):
``x-test-delay`` (seconds to sleep before answering, after the effect), ``x-test-gate`` (NAME:
write ``$ONCELY_GATES/NAME.entered``, then wait for ``NAME.release``), ``x-tenant`` (the
scope).

:class:`Probe` wraps the whole app (outside the middleware): every request's arrival is one line
of ``arrived.jsonl`` (next to the effects file) before the ledger is asked, and a ``/stream``
request's client leaving (its ``http.disconnect``, read from the server after the body) is
signalled to the handler.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route as StarletteRoute

import oncely
from oncely.provider.asgi import IdempotencyMiddleware, Route

LEDGER = oncely.Ledger.sqlite(os.environ["ONCELY_LEDGER"], owner=f"provider-{os.getpid()}")
EFFECTS = Path(os.environ["ONCELY_EFFECTS"])
ARRIVED = EFFECTS.with_name("arrived.jsonl")
GATES = Path(os.environ.get("ONCELY_GATES", "."))
KIND = os.environ.get("ONCELY_APP", "starlette")
# The lookup route's reconciler cannot tell (yet): its in-doubt keys stay in doubt.
LEDGER.reconciler("POST /boom-lookup", lambda request: oncely.Unknown("the books are closed"))

ROUTES = {
    "POST /refunds/{charge}": Route(),
    "POST /slow-refunds/{charge}": Route(wait_ms=20_000),
    "POST /boom": Route(),
    "POST /boom-lookup": Route(policy={"reconcile": {"lookup": "POST /boom-lookup"}}),
    "POST /unavailable": Route(),
    "POST /required": Route(required=True),
    "PUT /files/{name:path}": Route(tool="put-file"),
    "POST /stream": Route(),
    # Abandoned at its deadline: the handler never answers in time.
    "POST /overdue": Route(policy={"maxCallMs": 500}),
}
DISCONNECTED = "oncely_test.disconnected"  # the scope's asyncio.Event: the client left


def tenant(scope: Any) -> str:
    for k, v in scope["headers"]:
        if k == b"x-tenant":
            return str(v.decode("latin-1"))
    return "acct_1"


def append(path: Path, row: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())


def performed(kind: str, request: Request, answer: Any) -> None:
    """One effect, fsynced before the handler answers."""
    info = getattr(request.state, "oncely", None)
    row = {
        "kind": kind,
        "path": request.url.path,
        "client_key": None if info is None else info.client_key,
        "key": None if info is None else info.key,
        "answer": answer,
        "pid": os.getpid(),
    }
    append(EFFECTS, row)


async def hold(request: Request) -> None:
    gate = request.headers.get("x-test-gate")
    if gate:
        (GATES / f"{gate}.entered").write_text("1")
        release = GATES / f"{gate}.release"
        for _ in range(6000):  # at most 60 s
            if release.exists():
                break
            await asyncio.sleep(0.01)
    delay = float(request.headers.get("x-test-delay", "0"))
    if delay:
        await asyncio.sleep(delay)


async def refund(request: Request) -> Response:
    body = await request.json()
    n = sum(1 for _ in EFFECTS.open()) + 1 if EFFECTS.exists() else 1
    answer = {"id": f"re_{n}", "charge": request.path_params["charge"], **body}
    text = json.dumps(answer, separators=(",", ":"))
    performed("refund", request, text)
    await hold(request)
    return Response(
        text,
        status_code=201,
        media_type="application/json",
        headers={"location": f"/refunds/re_{n}", "x-request-id": str(n)},
    )


async def boom(request: Request) -> Response:
    await request.body()
    performed("boom", request, None)
    raise RuntimeError("the handler failed after its effect")


async def unavailable(request: Request) -> Response:
    performed("unavailable", request, None)
    return JSONResponse({"error": "upstream down"}, status_code=503)


async def required(request: Request) -> Response:
    performed("required", request, None)
    return JSONResponse({"ok": True})


async def read_refund(request: Request) -> Response:
    return JSONResponse({"id": request.path_params["charge"], "read": True})


async def put_file(request: Request) -> Response:
    data = await request.body()
    performed("put-file", request, data.decode("latin-1"))
    return Response(data, media_type="application/octet-stream")


async def overdue(request: Request) -> Response:
    await request.body()
    performed("overdue", request, None)
    await asyncio.sleep(30)  # cancelled at the policy's maxCallMs
    return JSONResponse({"late": True})


async def stream(request: Request) -> Response:
    """A streaming answer: its first part, then (``x-test-gate``: NAME.entered written) it waits
    for the client to leave, then the rest. The effect is performed at the end of the stream."""
    await request.body()
    gate = request.headers["x-test-gate"]
    left: asyncio.Event = request.scope[DISCONNECTED]

    async def parts() -> Any:
        sent = ["part-1;"]
        yield sent[0].encode()
        (GATES / f"{gate}.entered").write_text("1")
        await asyncio.wait_for(left.wait(), 60)
        for i in range(2, 6):
            await asyncio.sleep(0.02)  # where a stream told of the disconnect would stop
            sent.append(f"part-{i};")
            yield sent[-1].encode()
        performed("stream", request, "".join(sent))

    return StreamingResponse(parts(), media_type="text/plain")


class Probe:
    """Outside the app and its middleware: records each request's arrival, and for ``/stream``
    watches the server's ``receive`` after the body, setting ``scope[DISCONNECTED]`` when the
    client leaves; the app's later ``receive`` calls get that same ``http.disconnect``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = next(
            (v.decode("latin-1") for k, v in scope["headers"] if k == b"idempotency-key"), None
        )
        append(ARRIVED, {"key": key, "path": scope["path"]})
        if scope["path"] != "/stream":
            await self.app(scope, receive, send)
            return
        left = scope[DISCONNECTED] = asyncio.Event()
        watcher: asyncio.Future[Any] | None = None

        async def watch() -> Any:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    left.set()
                    return message

        async def watched() -> Any:
            nonlocal watcher
            if watcher is not None:
                return await asyncio.shield(watcher)
            message = await receive()
            if message["type"] == "http.disconnect":
                left.set()
            elif not message.get("more_body", False):
                watcher = asyncio.ensure_future(watch())
            return message

        try:
            await self.app(scope, watched, send)
        finally:
            if watcher is not None:
                watcher.cancel()


def starlette_app() -> Any:
    app = Starlette(
        routes=[
            StarletteRoute("/refunds/{charge}", refund, methods=["POST"]),
            StarletteRoute("/slow-refunds/{charge}", refund, methods=["POST"]),
            StarletteRoute("/refunds/{charge}", read_refund, methods=["GET"]),
            StarletteRoute("/boom", boom, methods=["POST"]),
            StarletteRoute("/boom-lookup", boom, methods=["POST"]),
            StarletteRoute("/unavailable", unavailable, methods=["POST"]),
            StarletteRoute("/required", required, methods=["POST"]),
            StarletteRoute("/files/{name:path}", put_file, methods=["PUT"]),
            StarletteRoute("/stream", stream, methods=["POST"]),
            StarletteRoute("/overdue", overdue, methods=["POST"]),
        ]
    )
    app.add_middleware(IdempotencyMiddleware, ledger=LEDGER, scope=tenant, routes=ROUTES)
    return app


def fastapi_app() -> Any:
    from fastapi import FastAPI

    app = FastAPI()
    app.add_api_route("/refunds/{charge}", refund, methods=["POST"])
    app.add_api_route("/slow-refunds/{charge}", refund, methods=["POST"])
    app.add_api_route("/refunds/{charge}", read_refund, methods=["GET"])
    app.add_api_route("/boom", boom, methods=["POST"])
    app.add_api_route("/boom-lookup", boom, methods=["POST"])
    app.add_api_route("/unavailable", unavailable, methods=["POST"])
    app.add_api_route("/required", required, methods=["POST"])
    app.add_api_route("/files/{name:path}", put_file, methods=["PUT"])
    app.add_api_route("/stream", stream, methods=["POST"])
    app.add_api_route("/overdue", overdue, methods=["POST"])
    app.add_middleware(IdempotencyMiddleware, ledger=LEDGER, scope=tenant, routes=ROUTES)
    return app


app = Probe(fastapi_app() if KIND == "fastapi" else starlette_app())
