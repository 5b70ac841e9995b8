"""A refunds API with oncely's ASGI middleware, as a Starlette or a FastAPI app, for the provider
tests (run by uvicorn in its own process):

    ONCELY_APP=starlette|fastapi ONCELY_LEDGER=ledger.db ONCELY_EFFECTS=effects.jsonl \\
    ONCELY_GATES=gates/ python -m uvicorn provider_app:app --port N

Every effect the handlers perform is one fsynced line of ``$ONCELY_EFFECTS`` (with the body it
answered), read by the tests from outside this process. Test headers (never part of the key):
``x-test-delay`` (seconds to sleep before answering, after the effect), ``x-test-gate`` (NAME:
write ``$ONCELY_GATES/NAME.entered``, then wait for ``NAME.release``), ``x-tenant`` (the
scope).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route as StarletteRoute

import oncely
from oncely.provider.asgi import IdempotencyMiddleware, Route

LEDGER = oncely.Ledger.sqlite(os.environ["ONCELY_LEDGER"], owner=f"provider-{os.getpid()}")
EFFECTS = Path(os.environ["ONCELY_EFFECTS"])
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
}


def tenant(scope: Any) -> str:
    for k, v in scope["headers"]:
        if k == b"x-tenant":
            return str(v.decode("latin-1"))
    return "acct_1"


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
    with EFFECTS.open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())


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
    app.add_middleware(IdempotencyMiddleware, ledger=LEDGER, scope=tenant, routes=ROUTES)
    return app


app = fastapi_app() if KIND == "fastapi" else starlette_app()
