"""The Python side of ``bindings/js/bench/provider.mjs``: a FastAPI app whose ``POST /refunds``
reads a JSON body and answers 201 with JSON, bare or behind oncely's ASGI middleware.

    ONCELY_BENCH_LEDGER=ledger.db python -m uvicorn bench_provider_app:app --port N
    python -m uvicorn bench_provider_app:app --port N          # the app alone

With ``ONCELY_BENCH_LEDGER`` the app is wrapped in
:class:`~oncely.provider.asgi.IdempotencyMiddleware` over a SQLite ledger in that file, with the
middleware's defaults (the route's tool, the core's policy), as a user would start.
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse

bare = FastAPI()


@bare.post("/refunds", status_code=201)
async def refund(body: dict[str, Any]) -> JSONResponse:
    charge = body.get("charge")
    return JSONResponse(
        {
            "id": f"re_{charge}",
            "charge": charge,
            "amount": body.get("amount"),
            "status": "succeeded",
        },
        status_code=201,
    )


app: Any = bare
if os.environ.get("ONCELY_BENCH_LEDGER"):
    import oncely
    from oncely.provider.asgi import IdempotencyMiddleware, Route

    app = IdempotencyMiddleware(
        bare,
        ledger=oncely.Ledger.sqlite(os.environ["ONCELY_BENCH_LEDGER"]),
        scope="bench",
        routes={"POST /refunds": Route(required=True)},
    )
