"""What one call into the core costs from Python, and what of it a new crossing could remove.

    python bindings/python/bench_crossing.py [--rounds 7] [--min-time 0.2]

The numbers the design of issue 26's crossing rests on (docs/performance.md, "The crossing"),
each the median of alternating rounds, in one process:

- **floor**: two calls of a core-module function through wasmtime's C API as wasmtime-py exposes
  it (``wasmtime_func_call_unchecked``, arguments in a preallocated buffer): the least two calls
  into wasm cost from Python (a replay made two until 2026-12-04, one now), whatever crosses.
  The core module is the one inside the shipped component (it imports nothing), instantiated
  on its own; the function called is its allocator (an allocation and its release). Then the
  same two calls through wasmtime-py's public ``Func.__call__``.
- **a small call**: ``canonical.canonicalize`` of a 94-byte document, through oncely's component
  call (its compiled codec) and through the core module directly (allocate, copy the text in,
  call, read the result, post-return: four calls at the floor's price).
- **a replay**: ``Ledger.run`` of an intent already recorded, on SQLite (``bench_ledger.py``'s
  effect); the time spent inside
  oncely's component calls (counted), and a ``SELECT`` of the same row alone.
- **encoders and decoders** Python has in C: ``json.dumps`` and ``pickle.dumps`` of the
  benchmark's structured arguments (``bench.py``'s), and ``json.loads`` / ``pickle.loads`` of
  the same value back.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import pickle
import sqlite3
import statistics
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import wasmtime
from wasmtime import _bindings as capi

import oncely
from bench import make_args, per_call
from bench_ledger import POLICY_DOC, RUN, SCOPE, TOOL, args_of, refund
from oncely import _files, _runtime

REPLAY = "replay (Ledger.run, SQLite)"
DOC = (
    '{"b":[1,2.50,"é"],"a":{"y":true,"x":null},"amount":4999,"currency":"usd","note":"hello there"}'
)


def core_module(component: bytes) -> bytes:
    """The core module inside a component that has exactly one (section id 1)."""

    def leb(i: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            b = component[i]
            i += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return value, i

    found = []
    i = 8  # magic and layer/version
    while i < len(component):
        size, start = leb(i + 1)
        if component[i] == 1:
            found.append(component[start : start + size])
        i = start + size
    if len(found) != 1:
        raise SystemExit(f"expected one core module in the component, found {len(found)}")
    return found[0]


class Direct:
    """The core module instantiated alone, called through the C API with raw values."""

    def __init__(self) -> None:
        engine = wasmtime.Engine()
        self.store = wasmtime.Store(engine)
        module = wasmtime.Module(engine, core_module(_files.component()))
        self.exports = wasmtime.Instance(self.store, module, []).exports(self.store)
        self.ctx = self.store._context()
        self.memory = self.exports["memory"]
        self.args = (capi.wasmtime_val_raw_t * 4)()
        self.trap = ctypes.POINTER(capi.wasm_trap_t)()
        self.trap_ref = ctypes.byref(self.trap)
        self.call_raw = capi.wasmtime_func_call_unchecked
        self.realloc = self.func("cabi_realloc")
        name = "oncely:core/canonical@0.1.0#canonicalize"
        self.canon, self.post = self.func(name), self.func("cabi_post_" + name)
        self.pair = struct.Struct("<II")

    def func(self, name: str) -> Any:
        return ctypes.byref(self.exports[name]._func)

    def base(self) -> int:
        data = capi.wasmtime_memory_data(self.ctx, ctypes.byref(self.memory._memory))
        return ctypes.cast(data, ctypes.c_void_p).value or 0

    def call(self, f: Any, n: int) -> None:
        err = self.call_raw(self.ctx, f, self.args, n, self.trap_ref)
        if err or self.trap:
            raise SystemExit("the core trapped")

    def alloc(self, n: int) -> int:
        a = self.args
        a[0].i32, a[1].i32, a[2].i32, a[3].i32 = 0, 0, 1, n
        self.call(self.realloc, 4)
        return int(a[0].i32)

    def free(self, p: int, n: int) -> None:
        a = self.args
        a[0].i32, a[1].i32, a[2].i32, a[3].i32 = p, n, 1, 0
        self.call(self.realloc, 4)

    def canonicalize(self, text: str) -> str:
        data = text.encode()
        p = self.alloc(len(data))  # the callee owns the argument's memory
        ctypes.memmove(self.base() + p, data, len(data))
        a = self.args
        a[0].i32, a[1].i32 = p, len(data)
        self.call(self.canon, 2)
        r = int(a[0].i32)
        base = self.base()
        # result<string, canon-error>: the case's byte, the payload at 8 (canon-error has a u64)
        if ctypes.string_at(base + r, 1) != b"\0":
            raise SystemExit("the core refused the document")
        sp, sn = self.pair.unpack(ctypes.string_at(base + r + 8, 8))
        out = ctypes.string_at(base + sp, sn).decode()
        a[0].i32 = r
        self.call(self.post, 1)
        return out


def replay_contenders(
    tmp: str,
) -> tuple[dict[str, Callable[[], Any]], sqlite3.Connection, list[int]]:
    """A replay of ``bench_ledger.py``'s effect on SQLite, and the SELECT of its row alone; and
    how many replays ran."""
    path = str(Path(tmp) / "ledger.db")
    ledger = oncely.Ledger.sqlite(path)
    policy = oncely.parse_policy(POLICY_DOC)
    intent = {"scope": SCOPE, "run": RUN, "step": "s-1", "tool": TOOL, "args": args_of(1)}
    ledger.run(refund, **intent, policy=policy)
    db = sqlite3.connect(path, isolation_level=None)
    (key,) = db.execute("SELECT key FROM oncely_effects LIMIT 1").fetchone()

    runs = [0]

    def replay() -> None:
        runs[0] += 1
        if not ledger.run(refund, **intent, policy=policy).replayed:
            raise SystemExit("the effect ran again")

    def select() -> None:
        db.execute(
            "SELECT * FROM oncely_effects WHERE scope = ? AND key = ?", (SCOPE, key)
        ).fetchone()

    return {REPLAY: replay, "SELECT the row alone": select}, db, runs


def codec_contenders() -> dict[str, Callable[[], Any]]:
    out: dict[str, Callable[[], Any]] = {}
    for label, value in (("200 B", make_args(200, 200)), ("64 KiB", make_args(65536, 65536))):
        j, pk = json.dumps(value, ensure_ascii=False), pickle.dumps(value, 5)
        out[f"json.dumps {label}"] = lambda v=value: json.dumps(v, ensure_ascii=False)
        out[f"pickle.dumps {label}"] = lambda v=value: pickle.dumps(v, 5)
        out[f"json.loads {label}"] = lambda j=j: json.loads(j)
        out[f"pickle.loads {label}"] = lambda pk=pk: pickle.loads(pk)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7, help="alternating rounds (median reported)")
    p.add_argument("--min-time", type=float, default=0.2, help="seconds per measurement")
    a = p.parse_args()

    direct = Direct()
    if direct.canonicalize(DOC) != oncely.canonicalize(DOC):
        raise SystemExit("the direct call and oncely disagree")
    public_realloc = direct.exports["cabi_realloc"]

    def floor() -> None:
        direct.free(direct.alloc(16), 16)

    def public() -> None:
        q = public_realloc(direct.store, 0, 0, 1, 16)
        public_realloc(direct.store, q, 16, 1, 0)

    rt = _runtime.shared()
    inner, spent, made = rt.call, [0.0], [0]

    def timed(name: str, *args: Any) -> Any:
        made[0] += 1
        t0 = time.perf_counter()
        try:
            return inner(name, *args)
        finally:
            spent[0] += time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        replays, db, fn_runs = replay_contenders(tmp)
        contenders: dict[str, Callable[[], Any]] = {
            "floor: two raw core calls": floor,
            "the same, public Func.__call__": public,
            "canonicalize 94 B: component call": lambda: oncely.canonicalize(DOC),
            "canonicalize 94 B: core module direct": lambda: direct.canonicalize(DOC),
            **replays,
            **codec_contenders(),
        }
        samples: dict[str, list[float]] = {k: [] for k in contenders}
        share: list[float] = []
        calls: list[float] = []
        for _ in range(a.rounds):
            for name, fn in contenders.items():
                if name == REPLAY:
                    rt.call, spent[0], t0 = timed, 0.0, time.perf_counter()  # type: ignore[method-assign]
                    made[0], before = 0, fn_runs[0]
                samples[name].append(per_call(fn, a.min_time))
                if name == REPLAY:
                    share.append(spent[0] / (time.perf_counter() - t0))
                    calls.append(made[0] / (fn_runs[0] - before))
                    rt.call = inner  # type: ignore[method-assign]
        db.close()

    t = {k: statistics.median(v) * 1e6 for k, v in samples.items()}
    print(f"wasmtime-py {_runtime.wasmtime_version()}; median of {a.rounds} alternating rounds\n")
    print("| what | µs per call |")
    print("|---|---|")
    for name, us in t.items():
        print(f"| {name} | {us:,.2f} |")
    inside = statistics.median(share)
    print(
        f"\na replay spends {inside:.0%} of its time in oncely's component calls "
        f"({statistics.median(calls):g} per replay, {t[REPLAY] * inside:,.1f} µs); two calls at "
        f"the floor take "
        f"{t['floor: two raw core calls']:,.1f} µs, the row's SELECT "
        f"{t['SELECT the row alone']:,.1f} µs"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
