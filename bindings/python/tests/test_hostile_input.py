"""Hostile inputs: each is refused with oncely's own typed error carrying the core's kind — never
a bare ``RecursionError``, ``TypeError``, ``ValueError``, ``UnicodeEncodeError`` or
``OverflowError`` — at every public entry point that takes user data, and a refused call writes
nothing to the ledger and never calls the tool.

What the core can judge it judges (the JSON text as written, sent as WTF-8 when it holds a lone
surrogate); what only Python sees (a member name that is not a ``str``, a ``set``, NaN…) is
refused with the core's nearest kind, and the pointer of the value in the message. When both
kinds of problem are present, the first in document order wins, and a problem the core checks
before the arguments (an empty scope, a bad key spec) wins over any problem in them, as in the
core (``docs/key-scheme.md``, "Which error is reported").
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import decimal
import sqlite3
import subprocess
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import oncely
from oncely import CanonErrorKind as K
from oncely import KeyErrorKind

MIB16 = 16 * 1024 * 1024
POLICY: dict[str, Any] = {"class": "irreversible-external", "reconcile": "manual"}
GOOD = {"scope": "acme", "run": "r1", "step": "s1", "tool": "refund", "args": {"id": "ch_1"}}


def nest_list(n: int) -> Any:
    v: Any = []
    for _ in range(n - 1):
        v = [v]
    return v


def nest_tuple(n: int) -> Any:
    v: Any = ()
    for _ in range(n - 1):
        v = (v,)
    return v


def nest_dict(n: int) -> Any:
    v: Any = {}
    for _ in range(n - 1):
        v = {"a": v}
    return v


def cyclic_list() -> Any:
    v: list[Any] = [1]
    v.append(v)
    return v


def cyclic_dict() -> Any:
    v: dict[str, Any] = {"a": 1}
    v["self"] = v
    return v


def cyclic_via_tuple() -> Any:
    inner: list[Any] = []
    t = (inner,)
    inner.append(t)
    return {"t": t}


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"


@dataclass(frozen=True)
class Case:
    """One hostile input. Exactly one of ``canon`` (``invalid-args`` with this canonicalization
    kind; ``CanonError`` from ``canonicalize``), ``key`` (a key error the core finds before the
    arguments) and ``encoding`` (``EncodingError`` on this id) is set."""

    name: str
    args: Any
    canon: K | None = None
    key: KeyErrorKind | None = None
    encoding: str | None = None
    ids: dict[str, str] = field(default_factory=dict)
    policy: Any = None
    says: str | None = None
    """A piece of the message (a pointer, for what only Python sees)."""

    def __repr__(self) -> str:  # the arguments may be cyclic or 100,000 levels deep
        return f"Case({self.name!r})"

    @property
    def is_value(self) -> bool:
        return not isinstance(self.args, (str, bytes))


def C(name: str, args: Any, canon: K, says: str | None = None) -> Case:
    return Case(name, args, canon=canon, says=says)


CASES: list[Case] = [
    # --- nesting: the core's limit and wording, whatever the depth; a cycle is infinitely deep
    C("list nested 129 deep", nest_list(129), K.TOO_DEEP, "nested deeper than 128 levels"),
    C("list nested 100,000 deep", nest_list(100_000), K.TOO_DEEP, "column 129, byte 128"),
    C("dict nested 129 deep", nest_dict(129), K.TOO_DEEP, "nested deeper than 128 levels"),
    C("dict nested 100,000 deep", nest_dict(100_000), K.TOO_DEEP, "nested deeper than 128"),
    C("deep nesting under a member", {"a": [1, {"b": nest_list(200)}]}, K.TOO_DEEP),
    C("tuples nested 10,000 deep", nest_tuple(10_000), K.TOO_DEEP),
    C("a list that contains itself", cyclic_list(), K.TOO_DEEP),
    C("a dict that contains itself", cyclic_dict(), K.TOO_DEEP),
    C("a cycle through a tuple", cyclic_via_tuple(), K.TOO_DEEP),
    # --- values JSON has no place for
    C("set", {"a": {1, 2}}, K.SYNTAX, 'type set at "/a"'),
    C("frozenset", {"a": frozenset()}, K.SYNTAX, 'type frozenset at "/a"'),
    C("bytes inside the arguments", {"a": [b"x"]}, K.SYNTAX, 'type bytes at "/a/0"'),
    C("bytearray", {"a": bytearray(b"x")}, K.SYNTAX, 'type bytearray at "/a"'),
    C("object()", {"a": object()}, K.SYNTAX, 'type object at "/a"'),
    C("an instance of a class", {"a": Opaque()}, K.SYNTAX, "Opaque"),
    C("Decimal", {"amount": decimal.Decimal("1.10")}, K.SYNTAX, "decimal.Decimal"),
    C("datetime", {"at": datetime.datetime(2020, 1, 1)}, K.SYNTAX, "datetime.datetime"),
    C("complex", [1j], K.SYNTAX, 'type complex at "/0"'),
    C("a function", {"f": len}, K.SYNTAX, 'at "/f"'),
    C("a generator", {"g": (i for i in range(3))}, K.SYNTAX, "generator"),
    C("a set at the top", {1, 2}, K.SYNTAX, 'type set at ""'),
    C("a member name with ~ and / in the pointer", {"a/b": {"c~d": {2}}}, K.SYNTAX, '"/a~1b/c~0d"'),
    # --- floats JSON cannot carry
    C("NaN", {"a": float("nan")}, K.SYNTAX, 'NaN at "/a"'),
    C("+Infinity", {"a": float("inf")}, K.NUMBER_OVERFLOW, 'inf at "/a"'),
    C("-Infinity", [float("-inf")], K.NUMBER_OVERFLOW, '-inf at "/0"'),
    C("NaN at the top", float("nan"), K.SYNTAX, 'NaN at ""'),
    C("1e400 as a float is infinity", {"a": [1.0, 1e400]}, K.NUMBER_OVERFLOW, '"/a/1"'),
    # --- integers: the core judges the digits
    C("2**53 + 1", {"n": 2**53 + 1}, K.INEXACT_INTEGER, "9007199254740993 cannot be held exactly"),
    C("-(2**53 + 1)", {"n": -(2**53 + 1)}, K.INEXACT_INTEGER, "-9007199254740993"),
    C("2**64 + 1", [2**64 + 1], K.INEXACT_INTEGER, "18446744073709551617"),
    C("10**400", {"n": 10**400}, K.NUMBER_OVERFLOW, "is too large for a double"),
    C("an integer of 5,000 digits", {"n": 10**5000}, K.NUMBER_OVERFLOW, 'integer at "/n"'),
    C("an integer of 50,000 digits", [10**50000], K.NUMBER_OVERFLOW, "about 50,001 digits"),
    # --- member names that are not strings: never written as "1", "true", "null"
    C("int member name", {1: "x"}, K.SYNTAX, 'object at "" is the int 1, not a string'),
    C("float member name", {"a": {1.5: "x"}}, K.SYNTAX, 'object at "/a" is the float 1.5'),
    C("bool member name", {True: "x"}, K.SYNTAX, "the bool True"),
    C("None member name", {None: "x"}, K.SYNTAX, "is None, not a string"),
    C("tuple member name", {(1, 2): "x"}, K.SYNTAX, "the tuple (1, 2)"),
    C("int member name after its str twin", {"1": "a", 1: "b"}, K.SYNTAX, "the int 1"),
    C("int member name deep in a list", [[{"ok": {2: 0}}]], K.SYNTAX, 'object at "/0/0/ok"'),
    C("int member name in a mapping", {"m": types.MappingProxyType({7: 1})}, K.SYNTAX, '"/m"'),
    # --- lone surrogates in the arguments: the core reports them, with the offset
    C("lone high surrogate in a value", ["\ud800"], K.LONE_SURROGATE, "byte 2"),
    C("lone low surrogate in a value", {"a": "x\udfff"}, K.LONE_SURROGATE, "byte 7"),
    C("lone surrogate in a member name", {"\ud800": 1}, K.LONE_SURROGATE, "byte 2"),
    C("reversed surrogate pair", ["\udc00\ud800"], K.LONE_SURROGATE),
    C("lone surrogate deep inside", {"a": [{"b": ["ok", "\ud83d"]}]}, K.LONE_SURROGATE),
    # --- JSON text (str): the core's errors as they are
    C("text: lone surrogate written raw", '["\ud800"]', K.LONE_SURROGATE, "byte 2"),
    C("text: lone surrogate as an escape", '["\\ud800"]', K.LONE_SURROGATE),
    C("text: unexpected end", '{"a":', K.SYNTAX, "unexpected end of input"),
    C("text: NaN literal", '{"a": NaN}', K.SYNTAX),
    C("text: Infinity literal", "[Infinity]", K.SYNTAX),
    C("text: trailing comma", "[1,]", K.SYNTAX),
    C("text: byte order mark", "\ufeff{}", K.SYNTAX),
    C("text: trailing data", "{} x", K.SYNTAX),
    C("text: duplicate member name", '{"a":1,"a":2}', K.DUPLICATE_KEY, 'duplicate member name "a"'),
    C("text: 1e400", '{"n": 1e400}', K.NUMBER_OVERFLOW),
    C("text: 2**53 + 1", '{"n": 9007199254740993}', K.INEXACT_INTEGER),
    C("text: 129 levels", "[" * 129 + "]" * 129, K.TOO_DEEP),
    C("text: 100,000 levels", "[" * 100_000, K.TOO_DEEP),
    C("text: larger than 16 MiB", '"' + "x" * MIB16 + '"', K.TOO_LARGE),
    # --- JSON text (bytes)
    C("bytes: not UTF-8", b'{"a": "\xff"}', K.INVALID_UTF8),
    C("bytes: overlong encoding", b'["\xc0\xaf"]', K.INVALID_UTF8),
    C("bytes: truncated sequence", b'["\xe2\x82"]', K.INVALID_UTF8),
    C("bytes: WTF-8 lone surrogate", b'["\xed\xa0\x80"]', K.LONE_SURROGATE),
    C("bytes: UTF-16", '{"a":1}'.encode("utf-16"), K.INVALID_UTF8),
    # --- a value whose JSON text is larger than the core accepts
    C("value: a string of 16 MiB", {"a": "x" * MIB16}, K.TOO_LARGE),
    # --- the first problem in document order wins, whoever finds it
    C("2**53 + 1, then NaN", [2**53 + 1, float("nan")], K.INEXACT_INTEGER),
    C("NaN, then 2**53 + 1", [float("nan"), 2**53 + 1], K.SYNTAX, 'NaN at "/0"'),
    C("lone surrogate, then a set", ["\ud800", {1}], K.LONE_SURROGATE),
    C("a set, then a lone surrogate", [{1}, "\ud800"], K.SYNTAX, 'set at "/0"'),
    C("int member name, then deep nesting", [{1: 1}, nest_list(300)], K.SYNTAX),
    C("deep nesting, then NaN", [nest_list(300), float("nan")], K.TOO_DEEP),
    # --- what the core checks before the arguments comes first
    Case("empty scope and NaN", [float("nan")], key=KeyErrorKind.EMPTY_FIELD, ids={"scope": ""}),
    Case("empty tool and bad bytes", b"\xff", key=KeyErrorKind.EMPTY_FIELD, ids={"tool": ""}),
    Case(
        "bad ignore pointer and an int member name",
        {1: 2},
        key=KeyErrorKind.INVALID_POINTER,
        # The policy reader refuses such a pointer; a spec built by hand reaches the core.
        policy=dataclasses.replace(
            oncely.parse_policy(POLICY),
            key=oncely.KeySpec(None, ["nope"], oncely.KeyIdentity.STEP),
        ),
    ),
    Case(
        "missing only member and NaN (the arguments come first)",
        {"x": float("nan")},
        canon=K.SYNTAX,
        policy={**POLICY, "key": {"only": ["/id"]}},
    ),
    # --- ids holding a lone surrogate: refused before anything else (no U+FFFD)
    Case("scope with a lone surrogate", {}, encoding="scope", ids={"scope": "\ud800"}),
    Case("run with a lone surrogate", {}, encoding="run", ids={"run": "r\udc00"}),
    Case("step with a lone surrogate", {}, encoding="step", ids={"step": "a\ud83db"}),
    Case("tool with a lone surrogate", {}, encoding="tool", ids={"tool": "\udfff"}),
    Case(
        "empty scope, tool with a lone surrogate",
        {},
        encoding="tool",
        ids={"scope": "", "tool": "t\ud800"},
    ),
]


def _intent(case: Case) -> dict[str, Any]:
    return {**GOOD, **case.ids, "args": case.args}


def _check(case: Case, e: BaseException, nested: bool = False) -> None:
    """``e`` is exactly the typed error the case expects (``nested``: the arguments are given
    one level down, so the message names another pointer)."""
    if case.encoding is not None:
        assert type(e) is oncely.EncodingError, repr(e)
        assert e.field == case.encoding
        assert e.kind is K.LONE_SURROGATE
        return
    assert type(e) is oncely.KeyDerivationError, repr(e)
    if case.key is not None:
        assert e.kind is case.key, repr(e)
        return
    assert e.kind is KeyErrorKind.INVALID_ARGS, repr(e)
    assert type(e.canon) is oncely.CanonError, repr(e)
    assert e.canon.kind is case.canon, repr(e)
    assert e.message == f"the arguments are not acceptable JSON: {e.canon.message}"
    if case.says is not None and case.is_value and not nested:
        assert case.says in e.canon.message, e.canon.message


ARGS_BEHIND_AN_EMPTY_SCOPE = {"empty scope and NaN": K.SYNTAX}
"""What the arguments of a case with an empty scope are refused for, once the scope is named."""


def _without_empty_scope(case: Case) -> Case:
    """The case as a call identified by the core sees it: the empty scope names nothing."""
    assert case.key is KeyErrorKind.EMPTY_FIELD, case.name
    canon = ARGS_BEHIND_AN_EMPTY_SCOPE[case.name]
    return dataclasses.replace(case, key=None, canon=canon, ids={})


def _raises(case: Case, call: Any, nested: bool = False) -> None:
    with pytest.raises(Exception) as info:
        call()
    _check(case, info.value, nested)


def _rows(path: str) -> int:
    with sqlite3.connect(path) as c:
        return int(c.execute("SELECT count(*) FROM oncely_effects").fetchone()[0])


@pytest.fixture(scope="module")
def ledger_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("hostile") / "ledger.db")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_pure_functions_refuse_it(case: Case) -> None:
    i = _intent(case)
    policy = case.policy
    kw = {"scope": i["scope"], "run": i["run"], "step": i["step"], "tool": i["tool"]}
    _raises(case, lambda: oncely.derive_key(**kw, args=case.args, policy=policy))
    _raises(case, lambda: oncely.derive(**kw, args=case.args, policy=policy))
    _raises(case, lambda: oncely.derive_keys([GOOD, i], policy=policy))
    _raises(case, lambda: oncely.explain(i, GOOD, policy=policy))
    _raises(case, lambda: oncely.explain(GOOD, i, policy=policy))
    if case.encoding is not None:
        _raises(case, lambda: oncely.derive_many([GOOD, i, GOOD], policy=policy))
    else:
        # Each result stands alone: the bad intent's error in its place, the others keyed.
        results = oncely.derive_many([GOOD, i, GOOD], policy=policy)
        if case.key is KeyErrorKind.INVALID_POINTER:  # the spec fails every intent
            assert all(isinstance(r, oncely.KeyDerivationError) for r in results)
        else:
            assert isinstance(results[0], oncely.DerivedKey)
            assert isinstance(results[2], oncely.DerivedKey)
        _check(case, results[1])
    if case.canon is not None and not case.ids and case.policy is None:
        with pytest.raises(Exception) as info:
            if case.is_value:
                oncely.canonicalize_value(case.args)
            else:
                oncely.canonicalize(case.args)
        assert type(info.value) is oncely.CanonError, repr(info.value)
        assert info.value.kind is case.canon


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_ledger_refuses_it_and_writes_nothing(case: Case, ledger_path: str) -> None:
    calls: list[str] = []

    def tool(key: str) -> str:
        calls.append(key)
        return "done"

    async def atool(key: str) -> str:
        calls.append(key)
        return "done"

    policy = case.policy or POLICY
    i = _intent(case)
    kw = {"scope": i["scope"], "run": i["run"], "step": i["step"], "tool": i["tool"]}
    with oncely.Ledger.sqlite(ledger_path, owner="w1") as ledger:
        before = _rows(ledger_path)
        _raises(case, lambda: ledger.prepare(**kw, args=case.args, policy=policy))
        _raises(case, lambda: ledger.run(tool, **kw, args=case.args, policy=policy))
        _raises(
            case, lambda: asyncio.run(ledger.aio.run(atool, **kw, args=case.args, policy=policy))
        )
        _raises(case, lambda: asyncio.run(ledger.aio.prepare(**kw, args=case.args, policy=policy)))

        if case.is_value and "tool" not in case.ids:
            # The decorator: the value is the tool's one argument, at /x of the arguments.
            @ledger.tool(name=kw["tool"], policy=policy)
            def refund(x: Any, *, idempotency_key: str) -> str:
                calls.append(idempotency_key)
                return "done"

            @ledger.tool(name=kw["tool"], policy=policy)
            async def arefund(x: Any, *, idempotency_key: str) -> str:
                calls.append(idempotency_key)
                return "done"

            # The decorator asks the core which intent a call is (agent.identify): an empty
            # scope names nothing there, so the scope is "default" and the arguments' own
            # error is the one raised (before the core's rule, an empty scope was refused).
            named = case if kw["scope"] else _without_empty_scope(case)
            with oncely.context(scope=kw["scope"], run=kw["run"], step=kw["step"]):
                _raises(named, lambda: refund(case.args), nested=True)
                _raises(named, lambda: asyncio.run(arefund(case.args)), nested=True)
        assert calls == []
        assert _rows(ledger_path) == before


def test_the_table_is_large_and_the_ledger_check_can_fail(ledger_path: str) -> None:
    assert len(CASES) >= 60
    with oncely.Ledger.sqlite(ledger_path, owner="w1") as ledger:
        before = _rows(ledger_path)
        ledger.run(lambda key: 1, **{k: v for k, v in GOOD.items()}, policy=POLICY)
        assert _rows(ledger_path) == before + 1


def test_member_names_that_are_not_strings_never_share_a_key() -> None:
    """``json.dumps`` writes ``{1: "x"}`` as ``{"1": "x"}``: the two would share a key."""
    kw = {k: v for k, v in GOOD.items() if k != "args"}
    oncely.derive_key(**kw, args={"1": "x"})
    for twin in ({1: "x"}, {1.0: "x"}, {True: "x"}, {None: "x"}):
        with pytest.raises(oncely.KeyDerivationError) as e:
            oncely.derive_key(**kw, args=twin)
        assert e.value.canon is not None and e.value.canon.kind is K.SYNTAX
    with pytest.raises(oncely.CanonError):
        oncely.canonicalize_value({"a": {False: 1}})


def test_what_only_python_sees_is_placed_where_the_core_would_place_it() -> None:
    e = pytest.raises(oncely.CanonError, oncely.canonicalize_value, {"ab": [1, {"c": {3}}]}).value
    text = '{"ab":[1,{"c":'
    assert (e.offset, e.line, e.column) == (len(text), 1, len(text) + 1)
    assert e.message == (
        'a value of type set at "/ab/1/c" is not a JSON value (JSON has null, true, false, '
        f"numbers, strings, arrays and objects) (line 1, column {len(text) + 1}, byte {len(text)})"
    )
    e = pytest.raises(oncely.CanonError, oncely.canonicalize_value, {"é": {0: 1}}).value
    assert (e.offset, e.column) == (len('{"é":{'.encode()), len('{"é":{') + 1)
    assert e.message.startswith('a member name of the object at "/é" is the int 0, not a string')


def test_deep_values_give_the_cores_own_error() -> None:
    """The same error as the JSON text of the value: limit, offset and wording are the core's."""
    for depth in (129, 1000, 200_000):
        text = "[" * depth + "]" * depth
        core = pytest.raises(oncely.CanonError, oncely.canonicalize, text).value
        mine = pytest.raises(oncely.CanonError, oncely.canonicalize_value, nest_list(depth)).value
        assert repr(mine) == repr(core)
    assert oncely.canonicalize_value(nest_list(128)) == "[" * 128 + "]" * 128


def test_core_errors_read_as_the_cli_reports_them(oncely_cli: Path) -> None:
    """Where the core judges, Python's message is the Rust CLI's, word for word."""
    for case in CASES:
        if case.is_value or case.canon is None or case.canon is K.TOO_LARGE:
            continue
        data = (
            case.args
            if isinstance(case.args, bytes)
            else case.args.encode("utf-8", "surrogatepass")
        )
        p = subprocess.run([str(oncely_cli), "canon"], input=data, capture_output=True, timeout=60)
        assert p.returncode == 2, case.name
        e = pytest.raises(oncely.CanonError, oncely.canonicalize, case.args).value
        assert p.stderr.decode() == f"oncely: {e.message}\n", case.name


def test_documents_refuse_hostile_values_with_a_policy_error() -> None:
    for doc in (
        {**POLICY, "leaseMs": float("nan")},
        {**POLICY, 1: "x"},
        {**POLICY, "key": {"only": [{"/a"}]}},
        b'{"class": "\xff"}',
        '{"class": "read-only\ud800"}',
        nest_dict(500),
    ):
        e = pytest.raises(oncely.PolicyError, oncely.parse_policy, doc).value
        assert type(e) is oncely.PolicyError and e.at == ""
    for fn in (oncely.check_tools, oncely.resolve_tool):
        for doc in ({"name": "x", 1: 2}, b"\xfe", [float("inf")], cyclic_list()):
            e = pytest.raises(oncely.PolicyError, fn, doc).value
            assert type(e) is oncely.PolicyError, (fn, doc)


def test_a_result_holding_a_lone_surrogate_is_done_but_not_recorded(ledger_path: str) -> None:
    """The tool ran: its result cannot be recorded as JSON text, so the effect is settled as done
    without a result (never left pending, never run again)."""
    calls: list[str] = []

    def tool(key: str) -> str:
        calls.append(key)
        return "\ud800"

    kw = {**GOOD, "step": "surrogate-result"}
    with oncely.Ledger.sqlite(ledger_path, owner="w1") as ledger:
        for _ in range(2):
            with pytest.raises(oncely.ResultNotRecordedError):
                ledger.run(tool, **kw, policy=POLICY)
        assert len(calls) == 1
        key = oncely.derive_key(**{k: v for k, v in kw.items()}, policy=POLICY)
        entry = ledger.get("acme", key)
        assert entry is not None and entry.state is oncely.EntryState.DONE


def test_results_keep_jsons_conversions_but_never_escape_untyped(ledger_path: str) -> None:
    """A result makes no key: member names such as 1 are written as json.dumps writes them. A
    result JSON cannot carry (NaN, a cycle, nesting too deep) is done-but-not-recorded, never a
    RecursionError escaping after the tool ran."""
    with oncely.Ledger.sqlite(ledger_path, owner="w1") as ledger:
        r = ledger.run(lambda key: {1: "x", None: [True]}, **{**GOOD, "step": "r1"}, policy=POLICY)
        again = ledger.run(lambda key: 0, **{**GOOD, "step": "r1"}, policy=POLICY)
        assert (r.value, again.value, again.replayed) == (
            {1: "x", None: [True]},
            {"1": "x", "null": [True]},
            True,
        )
        for n, bad in enumerate((nest_list(100_000), cyclic_dict(), [float("nan")], {"s": {1}})):
            with pytest.raises(oncely.ResultNotRecordedError):
                ledger.run(lambda key, bad=bad: bad, **{**GOOD, "step": f"bad{n}"}, policy=POLICY)
    assert oncely.happened({2: 1}).result_json == '{"2":1}'
    for bad in (float("inf"), cyclic_list(), nest_dict(1000), {"a": b""}):
        e = pytest.raises(oncely.CanonError, oncely.happened, bad).value
        assert type(e) is oncely.CanonError


def test_an_owner_holding_a_lone_surrogate_is_refused_when_the_ledger_is_made(
    ledger_path: str,
) -> None:
    e = pytest.raises(
        oncely.EncodingError, oncely.Ledger.sqlite, ledger_path, owner="w\ud800"
    ).value
    assert (e.field, e.index, e.kind) == ("owner", 1, K.LONE_SURROGATE)
