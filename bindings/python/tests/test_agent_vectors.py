"""tests/vectors/adapters.json through this package: which intent a tool call is
(``agent.identify``) and what the model reads (``agent.answer``), asked of the core through the
APIs a user calls — the adapters' guard (sync and asyncio, through a real ledger), the
``@ledger.tool`` decorator with ``oncely.context``, ``oncely.derive_key``, ``Ledger.run`` and
``Ledger.prepare`` without a step, and :func:`oncely.adapters.answer_for`. Every host replays the
same cases and must get the same answers."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import effect_error_of

import oncely
from oncely import _api, _machine
from oncely.adapters import answer_for, reply_for
from oncely.adapters._core import Guard
from oncely.types import (
    Canon,
    CanonErrorKind,
    Effect,
    Identity,
    IdentityErrorKind,
    Key,
    KeyErrorKind,
    KeyIdentity,
    Origin,
    Reply,
    ReplyCode,
)

Vectors = Callable[[str], Any]

CLASS = "irreversible-external"

ADAPTER_FIELDS = {"tool", "class", "key", "scope", "run", "step", "conversation"}
"""What an adapter knows of a call; the other fields (``_meta``, the MCP session, the gateway's
defaults) are the MCP gateway's."""

LOW_LEVEL_FIELDS = {"tool", "class", "key", "scope", "run"}
"""What the low-level APIs (``derive_key``, ``Ledger.run``, ``Ledger.prepare``) take when they
are given no step."""


def _policy(call: dict[str, Any]) -> dict[str, Any]:
    """The tool's policy: its class and key spec as the case writes them (none: a keyed class,
    the default spec)."""
    key = {"key": call["key"]} if call.get("key") is not None else {}
    return {"class": call.get("class", CLASS), **key}


def _passes_through(call: dict[str, Any]) -> bool:
    """The case's tool is not keyed (its class needs no ledger): each call runs it."""
    return call.get("class") in ("read-only", "overwriting-write")


def _meta_json(call: dict[str, Any]) -> str:
    if "metaJson" in call:
        text: str = call["metaJson"]
        return text
    return "" if "meta" not in call else json.dumps(call["meta"], separators=(",", ":"))


def _identify(call: dict[str, Any]) -> Identity:
    spec = _api.key_spec(_policy(call))
    return _api.identify(
        tool=call["tool"],
        key_identity=spec.identity,
        effect_class=call.get("class"),
        scope=call.get("scope"),
        run=call.get("run"),
        step=call.get("step"),
        conversation=call.get("conversation"),
        meta_json=_meta_json(call),
        params_key=call.get("paramsKey"),
        session=call.get("session"),
        default_scope=call.get("defaultScope"),
        default_run=call.get("defaultRun"),
    )


def _origin(name: str | None) -> Origin | None:
    return None if name is None else Origin(name)


def _check_identity(name: str, i: Identity, want: dict[str, Any]) -> None:
    assert (i.scope, i.run, i.step) == (want["scope"], want["run"], want["step"]), name
    assert i.key_identity is KeyIdentity(want["keyIdentity"]), name
    f = want["from"]
    assert (i.scope_from, i.run_from, i.step_from) == (
        Origin(f["scope"]), _origin(f["run"]), _origin(f["step"]),
    ), name  # fmt: skip


def _check_refusal(name: str, e: BaseException, want: dict[str, Any]) -> None:
    assert type(e) is oncely.IdentityError, (name, e)
    assert isinstance(e, LookupError), name  # as before the core decided it
    assert e.kind is IdentityErrorKind(want["kind"]), name
    assert (e.at, e.message) == (want["at"], want["message"]), name
    assert str(e) == want["message"], name


def _derive(call: dict[str, Any], i: Identity, args: str) -> str:
    """The key of the intent made of the identity, as the vectors define ``derived``."""
    spec = _api.key_spec(_policy(call))
    return oncely.derive_key(
        scope=i.scope, run=i.run or "", step=i.step or "", tool=call["tool"], args=args,
        policy=dataclasses.replace(spec, identity=i.key_identity),
    )  # fmt: skip


def test_identify(vectors: Vectors) -> None:
    """Every case through the core's identify as this package asks it, the derived keys, and
    which calls are one effect."""
    cases = vectors("adapters.json")["identify"]
    assert len(cases) >= 50
    keys: dict[int, str] = {}
    for n, c in enumerate(cases):
        want = c["expect"]
        if "error" in want:
            with pytest.raises(oncely.IdentityError) as refused:
                _identify(c["call"])
            _check_refusal(c["name"], refused.value, want["error"])
            continue
        i = _identify(c["call"])
        _check_identity(c["name"], i, want)
        if "args" in c:
            keys[n] = _derive(c["call"], i, c["args"])
            assert keys[n] == want["derived"], c["name"]
    for n, c in enumerate(cases):
        if "sameKeyAs" in c:
            assert keys[n] == keys[c["sameKeyAs"]], c["name"]
        if "otherKeyThan" in c:
            assert keys[n] != keys[c["otherKeyThan"]], c["name"]
    assert sum("sameKeyAs" in c for c in cases) >= 20
    assert sum("otherKeyThan" in c for c in cases) >= 5


def _adapter_cases(cases: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    return [(n, c) for n, c in enumerate(cases) if set(c["call"]) <= ADAPTER_FIELDS]


def _guard(ledger: oncely.Ledger, call: dict[str, Any]) -> Guard[None]:
    step = call.get("step")
    return Guard(
        ledger,
        name=call["tool"],
        policy=_policy(call),
        scope=call.get("scope"),
        run=call.get("run"),
        step=None if step is None else (lambda ctx, call_id: step),
        audit=None,
        options={},
    )


def _tools(seen: list[str]) -> tuple[Callable[[str], str], Callable[[str], Awaitable[str]]]:
    """A sync and an async tool that note the key they are called with."""

    def sync_tool(key: str) -> str:
        seen.append(key)
        return "sync"

    async def async_tool(key: str) -> str:
        seen.append(key)
        return "async"

    return sync_tool, async_tool


def test_identify_through_the_adapters(vectors: Vectors, tmp_path: Path) -> None:
    """The cases an adapter can meet (a scope, run and step given, a framework's conversation),
    through the guard every adapter uses: the identity, the refusal, and the key the ledger
    runs the tool with, sync and asyncio (a fresh ledger for each, the tool called once)."""
    cases = vectors("adapters.json")["identify"]
    chosen = _adapter_cases(cases)
    assert len(chosen) >= 15
    assert any("conversation" in c["call"] for _, c in chosen)
    assert any("error" in c["expect"] for _, c in chosen)
    for n, c in chosen:
        call, want = c["call"], c["expect"]
        with oncely.Ledger.sqlite(str(tmp_path / f"{n}.db"), owner="w1") as ledger:
            guard = _guard(ledger, call)
            if "error" in want:
                with pytest.raises(LookupError) as refused:
                    # The model's tool-call id is never a source of a run.
                    guard.identity(None, call.get("conversation"), "call_1")
                _check_refusal(c["name"], refused.value, want["error"])
                continue
            i = guard.identity(None, call.get("conversation"), "call_1")
            assert (i.scope, i.run, i.step) == (want["scope"], want["run"] or "", want["step"])
            assert i.policy.key is not None and i.policy.key.identity.value == want["keyIdentity"]
            if "args" not in c:
                continue
            args = json.loads(c["args"])
            seen: list[str] = []
            sync_tool, async_tool = _tools(seen)
            r = guard.run_sync(sync_tool, args, i, "call_1")
            assert (r.key, r.value, r.replayed) == (want["derived"], "sync", False), c["name"]
            again = asyncio.run(guard.run_async(async_tool, args, i, "call_2"))
            if _passes_through(call):
                # Not keyed: each call runs it (with no run, nothing refused it).
                assert (again.key, again.value, again.replayed) == (want["derived"], "async", False)
                assert seen == [want["derived"]] * 2, c["name"]
                continue
            assert (again.key, again.value, again.replayed) == (want["derived"], "sync", True)
            assert seen == [want["derived"]], c["name"]  # one effect, whoever asks


def test_identify_through_the_decorator(vectors: Vectors, tmp_path: Path) -> None:
    """The cases without a framework, through ``@ledger.tool`` and ``oncely.context``: the key
    of a call (``Tool.key``) and the refusal of a call with no run."""
    cases = vectors("adapters.json")["identify"]
    chosen = [(n, c) for n, c in _adapter_cases(cases) if "conversation" not in c["call"]]
    assert len(chosen) >= 10
    with oncely.Ledger.sqlite(str(tmp_path / "ledger.db"), owner="w1") as ledger:
        for _, c in chosen:
            call, want = c["call"], c["expect"]

            @ledger.tool(name=call["tool"], policy=_policy(call))
            def charge(*, idempotency_key: str, **args: Any) -> None:
                raise AssertionError("not called")

            given = {k: call[k] for k in ("scope", "run", "step") if k in call}
            with oncely.context(**given):
                if "error" in want:
                    with pytest.raises(LookupError) as refused:
                        charge(customer="c1")
                    assert refused.value.args  # the core's sentence
                    _check_refusal(c["name"], refused.value, want["error"])
                elif "args" in c:
                    assert charge.key(**json.loads(c["args"])) == want["derived"], c["name"]


def _low_level_calls(
    ledger: oncely.Ledger, kw: dict[str, str], args: str, policy: dict[str, Any]
) -> list[Callable[[], Any]]:
    """Each low-level API called without a step."""

    async def aio() -> Any:
        return await ledger.aio.run(lambda key: 1, **kw, args=args, policy=policy)

    return [
        lambda: oncely.derive_key(**kw, args=args, policy=policy),
        lambda: oncely.derive(**kw, args=args, policy=policy),
        lambda: ledger.prepare(**kw, args=args, policy=policy),
        lambda: ledger.run(lambda key: 1, **kw, args=args, policy=policy),
        lambda: asyncio.run(aio()),
    ]


def test_identify_through_the_low_level_apis(vectors: Vectors, tmp_path: Path) -> None:
    """``oncely.derive_key``, ``Ledger.prepare`` and ``Ledger.run`` (sync and asyncio) take no
    step and ask the core (docs/choosing-keys.md, "your own loop: step none")."""
    cases = vectors("adapters.json")["identify"]
    chosen = [(n, c) for n, c in enumerate(cases) if set(c["call"]) <= LOW_LEVEL_FIELDS]
    assert len(chosen) >= 5
    assert any("error" in c["expect"] for _, c in chosen)
    for n, c in chosen:
        call, want = c["call"], c["expect"]
        kw = {"scope": call.get("scope", ""), "run": call.get("run", ""), "tool": call["tool"]}
        policy = _policy(call)
        args = c.get("args", "{}")
        with oncely.Ledger.sqlite(str(tmp_path / f"{n}.db"), owner="w1") as ledger:
            if "error" in want:
                for ask in _low_level_calls(ledger, kw, args, policy):
                    with pytest.raises(LookupError) as refused:
                        ask()
                    _check_refusal(c["name"], refused.value, want["error"])
                continue
            if "args" not in c:
                continue
            derived = want["derived"]
            assert oncely.derive_key(**kw, args=args, policy=policy) == derived, c["name"]
            assert oncely.derive(**kw, args=args, policy=policy).key == derived, c["name"]
            claim = ledger.prepare(**kw, args=args, policy=policy)
            assert claim.key == derived, c["name"]
            assert (claim.scope, claim.run_id, claim.step_id) == (
                want["scope"], want["run"] or "", want["step"] or "",
            )  # fmt: skip
            r = ledger.run(lambda key: key, **kw, args=args, policy=policy)
            assert (r.key, r.value) == (derived, derived), c["name"]
            if _passes_through(call):
                again = ledger.run(lambda key: "again", **kw, args=args, policy=policy)
                assert (again.key, again.value, again.replayed) == (derived, "again", False)
                continue
            again = asyncio.run(
                ledger.aio.run(lambda key: pytest.fail("ran twice"), **kw, args=args,
                               policy=policy)
            )  # fmt: skip
            assert (again.key, again.replayed) == (derived, True), c["name"]


# --- answers ------------------------------------------------------------------------------------


def _effect_error(name: str, b: Any) -> Any:
    return effect_error_of(name, b)


def _failure(v: dict[str, Any]) -> tuple[Any, BaseException]:
    """The case's ``agent.failure``, and the exception this package raises for it."""
    ((name, b),) = v.items()
    if name == "effect":
        ((case, body),) = b.items()
        e = _effect_error(case, body)
        # As the effect machine's interpreter raises it: the typed error keeps the core's own.
        error = _machine._error(e)
        setattr(error, _machine.EFFECT_ERROR, e)
        return Effect(e), error
    if name == "key":
        k = oncely.KeyDerivationError(KeyErrorKind(b["kind"]), b["at"], None, b["message"])
        return Key(k), k
    assert name == "canon", name
    offset = b["offset"]
    canon = oncely.CanonError(CanonErrorKind(b["kind"]), offset, 1, offset + 1, b["message"])
    return Canon(canon), canon


def _check_reply(name: str, got: Reply | None, want: dict[str, Any] | None) -> None:
    if want is None:
        assert got is None, name
        return
    assert got is not None, name
    assert got.code is ReplyCode(want["code"]), name
    assert got.text == want["text"], name
    assert (got.key, got.pointer, got.retry_after_ms, got.repeatable) == (
        want["key"], want["pointer"], want["retryAfterMs"], want["repeatable"],
    ), name  # fmt: skip


def test_answer(vectors: Vectors) -> None:
    """Every answer case: the core's reply for the failure, and for the exception this package
    raises for it; ``answer_for`` (what the adapters give the model) is the reply's text, or
    ``None`` for what propagates."""
    cases = vectors("adapters.json")["answer"]
    assert len(cases) >= 18
    for c in cases:
        failure, error = _failure(c["failure"])
        want = c["expect"]
        _check_reply(c["name"], _api.answer(failure), want)
        _check_reply(c["name"], reply_for(error), want)
        assert answer_for(error) == (None if want is None else want["text"]), c["name"]
    # What no oncely rule answers propagates.
    assert answer_for(RuntimeError("a bug")) is None
    assert answer_for(oncely.StorageError("disk full")) is None


def test_the_answer_to_a_real_conflict_is_the_cores(tmp_path: Path) -> None:
    """A conflict the ledger raises, sync and asyncio: the model reads the core's sentence."""
    policy = {"class": CLASS, "key": {"only": ["/charge"], "identity": "scope"}}
    with oncely.Ledger.sqlite(str(tmp_path / "ledger.db"), owner="w1") as ledger:
        first = ledger.run(lambda key: 1, scope="acme", run="", tool="refund",
                           args={"charge": "ch_1", "amount": 500}, policy=policy)  # fmt: skip
        with pytest.raises(oncely.ConflictError) as sync:
            ledger.run(lambda key: 2, scope="acme", run="", tool="refund",
                       args={"charge": "ch_1", "amount": 600}, policy=policy)  # fmt: skip
        with pytest.raises(oncely.ConflictError) as aio:
            again = {"charge": "ch_1", "amount": 700}
            asyncio.run(ledger.aio.run(lambda key: 2, scope="acme", run="r2", tool="refund",
                                       args=again, policy=policy))  # fmt: skip
    for e in (sync.value, aio.value):
        reply = reply_for(e)
        assert reply is not None and reply.code is ReplyCode.CONFLICT
        assert (reply.key, reply.pointer) == (first.key, "/amount")
        assert answer_for(e) == reply.text
        assert reply.text.startswith("oncely: refused: an effect with this key already ran")


ERROR_CASES = {
    oncely.EscalatedError: "escalated",
    oncely.InDoubtError: "in-doubt",
    oncely.ConflictError: "conflict",
    oncely.InProgressError: "in-progress",
    oncely.ToolFailedError: "tool-failed",
}
"""The ``effect.effect-error`` case each typed error stands for."""


async def _cancelled_caller(c: dict[str, Any], location: str) -> None:
    """One ``cancel`` case through the adapters' guard, asyncio: the first caller's task is
    cancelled before its claim or while its tool runs; then the same intent is asked again."""
    intent, want = c["intent"], c["expect"]
    calls: list[str] = []
    started, release = asyncio.Event(), asyncio.Event()

    async def tool(key: str) -> dict[str, int]:
        calls.append(key)
        n = len(calls)
        started.set()
        if n == 1 and c["leaves"] == "during-call":
            await release.wait()
        if n == 1 and c["first"] == "fails-definitely":
            raise oncely.DefiniteFailure(c["reason"])
        if n == 1 and c["first"] == "fails-ambiguously":
            raise oncely.AmbiguousFailure(c["reason"])
        if n == 1 and c["first"] == "outlives-its-deadline":
            await asyncio.sleep(60)  # abandoned at maxCallMs
        return {"sent": n}

    with oncely.Ledger.sqlite(location, owner="w1") as ledger:
        guard = Guard(
            ledger, name=intent["tool"], policy=c["policy"], scope=intent["scope"],
            run=intent["run"], step=lambda ctx, call_id: intent["step"], audit=None, options={},
        )  # fmt: skip
        i = guard.identity(None, None, "call_1")
        first = asyncio.ensure_future(guard.run_async(tool, intent["args"], i, "call_1"))
        if c["leaves"] == "during-call":
            await started.wait()
        else:
            await asyncio.sleep(0)  # on its way to its first read, nothing written yet
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        if c["reask"] == "in-flight":
            asyncio.get_running_loop().call_later(0.1, release.set)
        else:
            release.set()
            entry = await ledger.aio.get(intent["scope"], want["key"])
            for _ in range(500):  # the shielded call runs on to its record (5 s at most)
                if entry is None or entry.state is not oncely.EntryState.PENDING:
                    break
                await asyncio.sleep(0.01)
                entry = await ledger.aio.get(intent["scope"], want["key"])
            state = None if entry is None else entry.state.value
            assert state == want["recorded"], c["name"]
        try:
            again = await guard.run_async(tool, intent["args"], i, "call_2")
            got: dict[str, Any] = {"replayed": again.replayed, "value": again.value}
            assert again.key == want["key"], c["name"]
        except oncely.OncelyError as e:
            reply = reply_for(e)
            assert reply is not None and str(e) == reply.text, c["name"]  # the core's sentence
            got = {"error": ERROR_CASES[type(e)], "code": reply.code.value}
        assert got == want["reask"], c["name"]
        assert len(calls) == want["calls"] and set(calls) == {want["key"]}, c["name"]
        entry = await ledger.aio.get(intent["scope"], want["key"])
        assert entry is not None and entry.state.value == want["state"], c["name"]


def test_a_cancelled_caller(vectors: Vectors, tmp_path: Path) -> None:
    """``cancel``: what a caller that stops waiting leaves recorded, and what its re-ask gets
    (wit/effect.wit, "A caller that stops waiting"), through the guard every adapter uses."""
    cases = vectors("adapters.json")["cancel"]
    assert {c["leaves"] for c in cases} == {"before-claim", "during-call"}
    for n, c in enumerate(cases):
        asyncio.run(_cancelled_caller(c, str(tmp_path / f"cancel-{n}.db")))
