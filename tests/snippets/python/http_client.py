# scripts/snippets: runs before a README block that sends a keyed request from inside a tool:
# `client` (an httpx.Client whose transport is a local stand-in for the provider: 201 with the
# key it was sent), `url`, `body` and the tool's `idempotency_key`.
import httpx


def provider(request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        201, json={"refund_id": "re_1", "key": request.headers["Idempotency-Key"]}
    )


client = httpx.Client(transport=httpx.MockTransport(provider))
url = "https://payments.invalid/refunds"
body = {"charge_id": "ch_1", "amount": 500}
idempotency_key = "oncely1:" + "0" * 64
