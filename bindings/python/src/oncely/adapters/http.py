"""HTTP calls inside a tool: the key as the provider's ``Idempotency-Key``, and the response in
the ledger's vocabulary (``pip install 'oncely[http]'``: httpx and requests).

::

    import httpx, oncely
    from oncely.adapters.http import request

    client = httpx.Client(base_url="https://api.example.com")

    @ledger.tool(policy={"class": "irreversible-external", "reconcile": "provider-idempotent"})
    def refund(charge_id: str, amount: int, *, idempotency_key: str) -> dict:
        r = request(client, "POST", "/refunds", json={"charge": charge_id, "amount": amount},
                    key=idempotency_key)
        return r.json()

``request`` (an ``httpx.Client`` or a ``requests.Session``) and ``arequest`` (an
``httpx.AsyncClient``) send the request with the key in the ``Idempotency-Key`` header (the
``key`` given, else ``oncely.current_call().key``) and read the answer:

========================================================  =========================================
the provider                                              the ledger
========================================================  =========================================
2xx                                                       done: the response is returned
a status in ``not_performed`` (default                    a definite failure (:class:`NotPerformed`,
:data:`DEFAULT_NOT_PERFORMED`: the refusals a server      a :class:`~oncely.DefiniteFailure`): the
answers before acting — 400-406, 410-417, 421, 422,       effect did not happen
426, 428, 429, 431, 451)
any other status (5xx; 408 Request Timeout; 409, which    unknown (:class:`OutcomeUnknown`, an
Stripe and the IETF draft answer while the same key is    :class:`~oncely.AmbiguousFailure`):
in flight; 423, 424, 425, 499; 1xx; 3xx), a timeout, a    reconciled, never sent again blindly
connection error
========================================================  =========================================

The same table as JavaScript's ``oncely/fetch`` (both replay ``tests/vectors/http.json``).

Give ``not_performed=`` the statuses YOUR provider documents as "nothing was done"; a status
wrongly listed there lets a later call run the effect again, one wrongly left out only costs a
reconciliation. Without a ``timeout=``, the request gets the time left before the call's
deadline (the policy's ``maxCallMs``), capped by the client's own timeouts; past the deadline it
is not sent (a definite failure).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, Literal

from oncely._machine import current_call
from oncely.errors import AmbiguousFailure, DefiniteFailure

if TYPE_CHECKING:
    import httpx

HEADER = "Idempotency-Key"

DEFAULT_NOT_PERFORMED: frozenset[int] = frozenset(
    {400, 401, 402, 403, 404, 405, 406, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426,
     428, 429, 431, 451}
)  # fmt: skip
"""The statuses read as "not performed" unless told otherwise: the refusals RFC 9110 and RFC 6585
define, which a server answers before acting (429 included: rate-limited requests are not
run). Not 408 (Request Timeout), 409 (Conflict: the same key still in flight, for Stripe and
the IETF Idempotency-Key draft), 423/424 (WebDAV: a part may have run), 425 (Too Early), 499
(client closed the request) or a status no RFC defines: a status wrongly listed lets a later
call run the effect again, one wrongly left out only costs a reconciliation."""

Outcome = Literal["done", "not-performed", "unknown"]


def classify(status: int, not_performed: Collection[int] = DEFAULT_NOT_PERFORMED) -> Outcome:
    """A status code in the ledger's vocabulary: ``done`` (2xx), ``not-performed`` (a status of
    ``not_performed``) or ``unknown`` (anything else)."""
    if 200 <= status < 300:
        return "done"
    if status in not_performed:
        return "not-performed"
    return "unknown"


class NotPerformed(DefiniteFailure):
    """The provider answered with a status that says the effect did not happen."""

    def __init__(self, status: int, response: Any) -> None:
        super().__init__(f"HTTP {status}: not performed")
        self.status = status
        self.response = response


class OutcomeUnknown(AmbiguousFailure):
    """The request may have been performed: a status that does not say, a timeout, a broken
    connection. ``status`` and ``response`` are ``None`` when no response came."""

    def __init__(self, reason: str, status: int | None = None, response: Any = None) -> None:
        super().__init__(reason)
        self.status = status
        self.response = response


def _key(key: str | None) -> str:
    if key is not None:
        return key
    call = current_call()
    if call is None:
        raise LookupError(
            "no idempotency key: pass key=... or call this inside an oncely tool "
            "(oncely.current_call())"
        )
    return call.key


def _left() -> float | None:
    """Seconds left before the current call's deadline (None: no deadline)."""
    call = current_call()
    left = None if call is None else call.timeout()
    if left is not None and left <= 0:
        raise DefiniteFailure("the call's deadline has passed; the request was not sent")
    return left


def _prepare(
    kwargs: dict[str, Any], key: str | None, header: str, client_timeout: Any
) -> dict[str, Any]:
    headers = dict(kwargs.pop("headers", None) or {})
    headers[header] = _key(key)
    if "timeout" not in kwargs:
        left = _left()
        if left is not None:
            kwargs["timeout"] = client_timeout(left)
    return {**kwargs, "headers": headers}


def _read(status: int, response: Any, not_performed: Collection[int]) -> Any:
    outcome = classify(status, not_performed)
    if outcome == "done":
        return response
    if outcome == "not-performed":
        raise NotPerformed(status, response)
    raise OutcomeUnknown(f"HTTP {status}: the outcome is unknown", status, response)


def _is_httpx(client: Any) -> bool:
    mod = type(client).__module__
    return mod == "httpx" or mod.startswith("httpx.")


def _httpx_timeout(client: Any) -> Any:
    import httpx

    t: httpx.Timeout = client.timeout

    def cap(left: float) -> httpx.Timeout:
        def one(v: float | None) -> float:
            return left if v is None else min(v, left)

        return httpx.Timeout(
            connect=one(t.connect), read=one(t.read), write=one(t.write), pool=one(t.pool)
        )

    return cap


def request(
    client: Any,
    method: str,
    url: str,
    *,
    key: str | None = None,
    not_performed: Collection[int] = DEFAULT_NOT_PERFORMED,
    header: str = HEADER,
    **kwargs: Any,
) -> Any:
    """Send one request with ``client`` (an ``httpx.Client`` or a ``requests.Session``) with the
    idempotency key in ``header``; return the response when it is 2xx, else raise
    :class:`NotPerformed` or :class:`OutcomeUnknown` (see the module's table). ``kwargs`` go to
    the client's ``request`` (``json=``, ``params=``, ``headers=``, ``timeout=``, …)."""
    if _is_httpx(client):
        import httpx

        kw = _prepare(kwargs, key, header, _httpx_timeout(client))
        try:
            response = client.request(method, url, **kw)
        except httpx.TimeoutException as e:
            raise OutcomeUnknown(f"timeout: {type(e).__name__}: {e}") from e
        except httpx.TransportError as e:
            raise OutcomeUnknown(f"connection: {type(e).__name__}: {e}") from e
        return _read(response.status_code, response, not_performed)

    import requests

    kw = _prepare(kwargs, key, header, lambda left: left)
    try:
        response = client.request(method, url, **kw)
    except requests.Timeout as e:
        raise OutcomeUnknown(f"timeout: {type(e).__name__}: {e}") from e
    except requests.ConnectionError as e:
        raise OutcomeUnknown(f"connection: {type(e).__name__}: {e}") from e
    return _read(response.status_code, response, not_performed)


async def arequest(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    key: str | None = None,
    not_performed: Collection[int] = DEFAULT_NOT_PERFORMED,
    header: str = HEADER,
    **kwargs: Any,
) -> httpx.Response:
    """:func:`request` for an ``httpx.AsyncClient``."""
    import httpx

    kw = _prepare(kwargs, key, header, _httpx_timeout(client))
    try:
        response = await client.request(method, url, **kw)
    except httpx.TimeoutException as e:
        raise OutcomeUnknown(f"timeout: {type(e).__name__}: {e}") from e
    except httpx.TransportError as e:
        raise OutcomeUnknown(f"connection: {type(e).__name__}: {e}") from e
    done: httpx.Response = _read(response.status_code, response, not_performed)
    return done


def headers_with_key(
    headers: Mapping[str, str] | None = None, *, key: str | None = None, header: str = HEADER
) -> dict[str, str]:
    """``headers`` plus the idempotency key (the ``key`` given, else the current call's), for a
    client this module does not wrap; read its answer with :func:`classify`."""
    return {**(headers or {}), header: _key(key)}


__all__ = [
    "DEFAULT_NOT_PERFORMED",
    "HEADER",
    "NotPerformed",
    "OutcomeUnknown",
    "arequest",
    "classify",
    "headers_with_key",
    "request",
]
