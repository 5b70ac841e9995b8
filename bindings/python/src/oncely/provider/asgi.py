"""An ASGI middleware (Starlette, FastAPI, any ASGI app) that honours the ``Idempotency-Key``
its clients send, with the core's rules (``wit/provider.wit``, ``docs/provider.md``)::

    from oncely.provider.asgi import IdempotencyMiddleware, Route

    app.add_middleware(
        IdempotencyMiddleware,
        ledger=oncely.Ledger.sqlite("ledger.db"),
        scope=lambda s: s["state"]["tenant"],   # a stable principal id, NOT the bearer token
        routes={"POST /refunds/{charge}": Route(required=True)},
    )

A pure ASGI middleware (not ``BaseHTTPMiddleware``). Per request of a configured route:

- **Routes** are matched by method and path template, by this module, before the app routes
  (:class:`Router`): ``{name}`` matches one non-empty path segment, ``{name:path}`` the rest of
  the path (slashes included); everything else is literal. The first route that matches wins;
  other requests pass through untouched. The template is the operation's name (its ledger
  ``tool``) unless :class:`Route` names one: keep it stable, it is part of every key.
- A request with a key (and a method that is not GET, HEAD, OPTIONS or TRACE) has its **whole
  body read first**, up to ``max_body`` bytes (larger: 413 ``request-too-large``, the handler
  not run); the app then reads it as usual.
- The handler's **whole response is buffered** and recorded in the ledger **before anything is
  sent**: the client never sees an answer the ledger lacks, and a client gone meanwhile does no
  harm. A streaming response is buffered whole too (an SSE route should not be keyed).
- The handler reads ``request.state.oncely`` (an :class:`~oncely.provider.OncelyRequest`: the
  client's key and the ledger key).
- A repeat gets the recorded response with ``Idempotent-Replayed: true``; the same key with
  another request 422 naming the JSON pointer; a concurrent duplicate 409 + ``Retry-After`` (or
  waits ``wait_ms`` for the first to finish); after a handler exception or a 5xx the key is in
  doubt (409 ``outcome-in-doubt``): the handler is never run again for it. The first caller
  still gets the handler's own answer (its exception goes on to the server's error handling).
- The keyed run is shielded from the request task's cancellation, and its app never receives
  the client's ``http.disconnect`` (after the body, ``receive`` waits): a handler that started
  runs to its end (at most the policy's ``maxCallMs``) and is recorded. A response the app left
  unfinished (no final body message) counts as an exception of the handler (an unknown
  outcome); a handler cancelled at ``maxCallMs`` has no answer: the client gets the core's
  refusal.

Run the ledger's sweeper next to the app (``ledger.start_sweeper()`` or ``oncely serve``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Union

from oncely import _api
from oncely.aio import AsyncLedger
from oncely.ledger import Ledger
from oncely.provider import (
    Fresh,
    HandlersOwn,
    OncelyRequest,
    PolicyArg,
    ProviderConfigError,
    Replayed,
    admit,
    async_ledger,
    operation,
    oversized,
    record_http,
    replay_http,
    resolve_scope,
    run_keyed,
)
from oncely.types import (
    HttpRequest,
    HttpResponse,
    KeyedCall,
    Operation,
    Pass,
    Recording,
    Refusal,
)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

ScopeOf = Union[str, Callable[[Scope], Union[str, Awaitable[str]]]]
"""The ledger scope of a request: a string, or a function of the ASGI scope (sync or async)
returning a stable tenant or principal id. Never the bearer token: it rotates, and a retry
with a new token would be a new request."""

_SEGMENT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::(path))?\}")


@dataclass(frozen=True)
class Route:
    """How one route honours keys.

    - ``tool``: the operation's name (its entries' ``tool``); default: ``"METHOD /template"``.
    - ``policy``: the policy (``docs/key-scheme.md §6``: class, ``key.ignore`` pointers into the
      JSON body, timings such as ``retentionMs``), JSON text or a mapping; default
      ``irreversible-external``, reconciled ``manual``ly.
    - ``required``: refuse a request without a key (400 ``idempotency-key-missing``).
    - ``wait_ms``: how long a concurrent duplicate waits for the first request's response
      (then replays it); ``None``: the core's default (``core_defaults().provider_wait_ms``, 0:
      answer 409 ``request-in-progress`` at once).
    """

    tool: str | None = None
    policy: PolicyArg = None
    required: bool = False
    wait_ms: int | None = None


@dataclass(frozen=True)
class _Compiled:
    method: str
    pattern: re.Pattern[str]
    op: Operation
    wait_ms: int | None


def compile_template(template: str) -> re.Pattern[str]:
    """The regular expression of a path template (``/refunds/{charge}``, ``/files/{p:path}``).
    Raises :class:`~oncely.provider.ProviderConfigError` for a template that is not a path."""
    if not template.startswith("/"):
        raise ProviderConfigError(f"a route's path template must start with '/': {template!r}")
    out, at = [], 0
    for m in _SEGMENT.finditer(template):
        out.append(re.escape(template[at : m.start()]))
        out.append(".+" if m.group(2) else "[^/]+")
        at = m.end()
    leftover = _SEGMENT.sub("", template)
    if "{" in leftover or "}" in leftover:
        raise ProviderConfigError(f"a malformed {{parameter}} in the route {template!r}")
    out.append(re.escape(template[at:]))
    return re.compile("".join(out))


class Router:
    """The configured routes, matched by method and path template (first match wins)."""

    def __init__(self, routes: Mapping[str, Route | None] | Iterable[tuple[str, Route | None]]):
        items = routes.items() if isinstance(routes, Mapping) else routes
        self.routes: list[_Compiled] = []
        for spec, route in items:
            r = route if route is not None else Route()
            if not isinstance(r, Route):
                raise ProviderConfigError(f"{spec!r}: expected a Route, not {type(r).__name__}")
            method, sep, template = spec.strip().partition(" ")
            if not sep or not method.isalpha():
                raise ProviderConfigError(
                    f"a route is 'METHOD /path/{{param}}' (e.g. 'POST /refunds/{{charge}}'): "
                    f"{spec!r}"
                )
            method, template = method.upper(), template.strip()
            if r.wait_ms is not None and (type(r.wait_ms) is not int or r.wait_ms < 0):
                raise ProviderConfigError(f"{spec!r}: wait_ms must be an int >= 0 (or None)")
            op = operation(r.tool or f"{method} {template}", r.policy, r.required)
            self.routes.append(_Compiled(method, compile_template(template), op, r.wait_ms))
        if not self.routes:
            raise ProviderConfigError("no routes: name the routes that honour keys")

    def match(self, method: str, path: str) -> _Compiled | None:
        """The first route for the request, else ``None``."""
        for r in self.routes:
            if r.method == method and r.pattern.fullmatch(path):
                return r
        return None


def _header(scope: Scope, name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", ()) if k.lower() == name]


def _problem_response(r: Refusal) -> HttpResponse:
    headers = [("content-type", "application/problem+json")]
    if r.retry_after_s is not None:
        headers.append(("retry-after", str(r.retry_after_s)))
    return HttpResponse(r.status, headers, r.problem_json.encode("utf-8"))


_NO_BODY = frozenset({101, 204, 205, 304})
"""Statuses whose responses carry no body (and so no Content-Length)."""


async def _send_response(send: Send, response: HttpResponse) -> None:
    headers = [
        (k.lower().encode("latin-1"), v.encode("latin-1"))
        for k, v in response.headers
        if k.lower() != "content-length"
    ]
    if response.status not in _NO_BODY:
        headers.append((b"content-length", str(len(response.body)).encode("ascii")))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body, "more_body": False})


class _TooLarge(Exception):
    pass


class _Disconnected(Exception):
    pass


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Disconnected
        if message["type"] != "http.request":
            continue
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


class _Captured:
    """The messages an app sent, kept (not sent).

    The app's answer is a *complete* response (its ``http.response.start``, then body messages
    up to the one without ``more_body``) or an exception it raised; a response cut short is
    the exception :meth:`incomplete` (an unknown outcome, never a recorded success)."""

    def __init__(self) -> None:
        self.start: Message | None = None
        self.chunks: list[bytes] = []
        self.trailers: list[Message] = []
        self.complete = False
        self.error: Exception | None = None

    async def send(self, message: Message) -> None:
        t = message["type"]
        if t == "http.response.start":
            if self.start is not None:
                raise RuntimeError("the app sent http.response.start twice")
            self.start = message
        elif t == "http.response.body":
            if self.start is None:
                raise RuntimeError("the app sent a body before http.response.start")
            if self.complete:
                raise RuntimeError("the app sent a body after its response was complete")
            self.chunks.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                self.complete = True
        else:
            self.trailers.append(message)

    def incomplete(self) -> Exception | None:
        """The app's failure when it returned without a complete response, else ``None``."""
        if self.start is None:
            return RuntimeError("the app returned without sending a response")
        if not self.complete:
            return RuntimeError("the app returned before the end of its response body")
        return None

    def response(self) -> HttpResponse:
        assert self.start is not None and self.complete  # checked by incomplete()
        headers = [
            (bytes(k).decode("latin-1"), bytes(v).decode("latin-1"))
            for k, v in self.start.get("headers", ())
        ]
        return HttpResponse(int(self.start["status"]), headers, b"".join(self.chunks))

    async def replay(self, send: Send) -> None:
        """Send what the app sent, as it sent it (the body in one message)."""
        if self.error is not None:
            raise self.error
        failure = self.incomplete()
        if failure is not None:
            raise failure
        assert self.start is not None
        await send(self.start)
        more = bool(self.trailers) and bool(self.start.get("trailers"))
        await send({"type": "http.response.body", "body": b"".join(self.chunks), "more_body": more})
        for m in self.trailers:
            await send(m)


_NO_BUFFERING = ("http.response.pathsend", "http.response.zerocopysend")


class IdempotencyMiddleware:
    """Honour the ``Idempotency-Key`` of requests to the configured routes (see the module).

    - ``ledger``: an :class:`~oncely.Ledger` or its :class:`~oncely.aio.AsyncLedger`; its
      ``owner`` names this process in claims.
    - ``scope``: the ledger scope of a request (:data:`ScopeOf`).
    - ``routes``: ``{"METHOD /path/{param}": Route(...)}`` (or pairs); ``None`` for defaults.
    - ``max_body``: the largest request body read (bytes); ``None``: the core's default
      (``core_defaults().provider_max_body``, 1 MiB).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        ledger: Ledger | AsyncLedger,
        scope: ScopeOf,
        routes: Mapping[str, Route | None] | Iterable[tuple[str, Route | None]],
        max_body: int | None = None,
    ) -> None:
        self.app = app
        self.ledger = async_ledger(ledger)
        if not (isinstance(scope, str) and scope) and not callable(scope):
            raise ProviderConfigError("scope must be a non-empty str or a function of the request")
        self.scope = scope
        self.router = Router(routes)
        if max_body is None:
            max_body = _api.core_defaults().provider_max_body
        if type(max_body) is not int or max_body < 0:
            raise ProviderConfigError("max_body must be an int >= 0 (or None)")
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = str(scope["method"]).upper()
        path = str(scope["path"])
        route = self.router.match(method, path)
        if route is None:
            await self.app(scope, receive, send)
            return
        keys = _header(scope, b"idempotency-key")
        content_type = (_header(scope, b"content-type") or [""])[0]
        query = bytes(scope.get("query_string", b"")).decode("latin-1")
        principal = await resolve_scope(self.scope, scope)
        # First without the body: whether a request passes or is refused never depends on it, so
        # a request that passes reaches the app with its body unread; only a keyed one is read,
        # whole, up to max_body (a chunked upload is cut off there).
        admission = admit(
            principal, route.op, HttpRequest(method, path, query, content_type, b"", keys)
        )
        body = b""
        if isinstance(admission, KeyedCall):
            declared = _header(scope, b"content-length")
            try:
                if declared and declared[0].strip().isdigit() and int(declared[0]) > self.max_body:
                    raise _TooLarge
                body = await _read_body(receive, self.max_body)
            except _TooLarge:
                await _send_response(send, self._too_large())
                return
            except _Disconnected:
                return  # the client left before its request arrived: nothing was done
            admission = admit(
                principal, route.op, HttpRequest(method, path, query, content_type, body, keys)
            )
        if isinstance(admission, Pass):
            await self.app(scope, receive, send)
        elif isinstance(admission, Refusal):
            await _send_response(send, _problem_response(admission))
        else:
            assert isinstance(admission, KeyedCall)
            # The handler runs in its own task: a cancelled request task (a server that cancels
            # on disconnect) does not cut it short; it ends and is recorded. It never sees the
            # client's http.disconnect either (a StreamingResponse would stop at it).
            task = asyncio.ensure_future(self._keyed(scope, admission, route, _replaying(body)))
            captured, outcome = await asyncio.shield(task)
            await self._answer(send, captured, outcome)

    def _too_large(self) -> HttpResponse:
        r = oversized(self.max_body)
        return HttpResponse(
            r.status, [("content-type", "application/problem+json")], r.problem_json.encode()
        )

    async def _keyed(
        self, scope: Scope, keyed: KeyedCall, route: _Compiled, receive: Receive
    ) -> tuple[_Captured, Any]:
        captured = _Captured()
        state = scope.setdefault("state", {})
        state["oncely"] = OncelyRequest(
            keyed.client_key, keyed.key, keyed.intent.scope, route.op.tool
        )
        inner = scope
        ext = scope.get("extensions")
        if ext and any(k in ext for k in _NO_BUFFERING):
            inner = dict(scope)
            inner["extensions"] = {k: v for k, v in ext.items() if k not in _NO_BUFFERING}

        async def handler() -> Recording:
            # An Exception of the app is its answer (an unknown outcome); a BaseException (a
            # cancellation at the policy's maxCallMs) leaves no answer: run_keyed refuses then.
            try:
                await self.app(inner, receive, captured.send)
            except Exception as e:
                captured.error = e
                raise
            failure = captured.incomplete()
            if failure is not None:
                captured.error = failure
                raise failure
            return record_http(captured.response())

        outcome = await run_keyed(self.ledger, keyed, handler, wait_ms=route.wait_ms)
        return captured, outcome

    async def _answer(self, send: Send, captured: _Captured, outcome: Any) -> None:
        if isinstance(outcome, (Fresh, HandlersOwn)):
            # run_keyed gives these only when the handler answered: a complete response, or
            # its exception (raised again here, for the server's error handling).
            await captured.replay(send)
        elif isinstance(outcome, Replayed):
            await _send_response(send, replay_http(outcome.recorded))
        else:
            assert isinstance(outcome, Refusal)
            await _send_response(send, _problem_response(outcome))


def _replaying(body: bytes) -> Receive:
    """A ``receive`` that gives the buffered body once, then waits forever: a keyed run answers
    the ledger, not the client, and runs to its end whether the client left or not (it never
    sees ``http.disconnect``, at which a ``StreamingResponse`` would stop)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # never set: cancelled with the handler, if ever
        raise AssertionError("unreachable")  # pragma: no cover

    return replay


__all__ = ["IdempotencyMiddleware", "Route", "Router", "ScopeOf", "compile_template"]
