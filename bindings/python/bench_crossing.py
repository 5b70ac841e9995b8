"""What one call into the core costs from Python, through each of oncely's two crossings.

    python bindings/python/bench_crossing.py [--rounds 7] [--min-time 0.2]

The numbers the Python runtime's choice of crossing rests on (``oncely._runtime.CROSSINGS``;
docs/performance.md, "The crossing"), each the median of alternating rounds, in one process:

- **floor**: two calls of a core-module function through wasmtime's C API
  (``wasmtime_func_call_unchecked``, arguments in a preallocated buffer; ``oncely._wasm``): the
  least two calls into wasm cost from Python. The function called is the core module's allocator
  (an allocation and its release), on the instance the ``core`` crossing uses. Then the same two
  calls through wasmtime-py's public ``Func.__call__`` (the same module, instantiated by
  wasmtime-py).
- **the two crossings, call by call**: the same export with the same arguments through a
  runtime whose crossing is ``component`` (the component's export, values converted by
  wasmtime's component API) and one whose crossing is ``core`` (the core module's export, the
  Canonical ABI done in Python): ``canonical.canonicalize`` of a 94-byte document, ``keys.key``
  of ``bench_ledger.py``'s intent (flat arguments), and the one ``effect.run`` of a replay
  (its ``run-call``'s bytes in, the ``run-answer``'s out: ``oncely._wire``). ``auto`` takes
  the core crossing for every one.
- **a replay**: ``Ledger.run`` of an intent already recorded, on SQLite (``bench_ledger.py``'s
  effect), with the default crossing (``auto``); the time spent inside oncely's calls into the
  core (counted), and a ``SELECT`` of the same row alone; then the replay's parts, each timed
  alone in the order ``Ledger.run`` does them (their sum is about the whole).
- **encoders and decoders** Python has in C: ``json.dumps`` and ``pickle.dumps`` of the
  benchmark's structured arguments (``bench.py``'s), and ``json.loads`` / ``pickle.loads`` of
  the same value back.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import oncely
from bench import make_args, per_call
from bench_ledger import POLICY_DOC, RUN, SCOPE, TOOL, args_of, refund
from oncely import _runtime

REPLAY = "replay (Ledger.run, SQLite)"
DOC = (
    '{"b":[1,2.50,"é"],"a":{"y":true,"x":null},"amount":4999,"currency":"usd","note":"hello there"}'
)


def replay_start() -> tuple[Any, ...]:
    """The arguments of the one ``effect.run`` a replay of ``bench_ledger.py``'s effect makes."""
    with tempfile.TemporaryDirectory() as tmp:
        ledger = oncely.Ledger.sqlite(str(Path(tmp) / "ledger.db"))
        policy = oncely.parse_policy(POLICY_DOC)
        intent = {"scope": SCOPE, "run": RUN, "step": "s-1", "tool": TOOL, "args": args_of(1)}
        ledger.run(refund, **intent, policy=policy)
        rt = _runtime.shared()
        inner, seen = rt._call, []

        def spy(name: str, args: tuple[Any, ...], via: Any) -> Any:
            seen.append((name, args))
            return inner(name, args, via)

        rt._call = spy  # type: ignore[method-assign]
        try:
            ledger.run(refund, **intent, policy=policy)
        finally:
            rt._call = inner  # type: ignore[method-assign]
    runs = [args for name, args in seen if name == "effect.run"]
    if len(runs) != 1:
        raise SystemExit(f"a replay made {len(runs)} calls of effect.run, not 1")
    return runs[0]


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

    parts = replay_parts(ledger, intent, policy)
    return {REPLAY: replay, "SELECT the row alone": select, **parts}, db, runs


def replay_parts(ledger: Any, intent: dict[str, Any], policy: Any) -> dict[str, Callable[[], Any]]:
    """What a replay's parts cost, each alone, in the order ``Ledger.run`` does them
    (``_machine.run_effect_sync``): the command built from the intent, its ``run-call``
    encoded, the call into the core, the answer's head read, the row's narrow read, the replay
    rule checked, the caller's result made."""
    from oncely import _machine
    from oncely.ledger import EffectSpec
    from oncely.types import Start

    rt, spec, now = ledger._rt, EffectSpec(0, None, (), None, None), ledger.clock()
    cmd = _machine.effect_command(ledger, spec, **intent, policy=policy)
    codec = rt._run_codec
    out = bytearray()
    codec.put(codec.run_call(b"", Start(cmd), now), out)
    answer = rt.call_bytes("effect.run", out)
    step = _runtime.LazyStep(answer, codec)
    rule, where = step.replay, step.read
    got = _machine.recorded(ledger.store, where.scope, where.key)
    done = _machine._replayed(rule, where.key, got, ledger._events)
    if done is None:
        raise SystemExit("the replay rule does not answer the recorded row")

    def encode() -> None:
        codec.put(codec.run_call(b"", Start(cmd), now), bytearray())

    return {
        "replay, its parts: the command": lambda: _machine.effect_command(
            ledger, spec, **intent, policy=policy
        ),
        "  encoding the run-call": encode,
        "  the call into the core": lambda: rt.call_bytes("effect.run", out),
        "  the answer's head read": lambda: _runtime.LazyStep(answer, codec),
        "  the row's narrow read": lambda: _machine.recorded(ledger.store, where.scope, where.key),
        "  the replay rule checked": lambda: _machine._replayed(
            rule, where.key, got, ledger._events
        ),
        "  the result made": lambda: _machine.effect_result(spec, (done, None, None)),
    }


def codec_contenders() -> dict[str, Callable[[], Any]]:
    out: dict[str, Callable[[], Any]] = {}
    for label, value in (("200 B", make_args(200, 200)), ("64 KiB", make_args(65536, 65536))):
        j, pk = json.dumps(value, ensure_ascii=False), pickle.dumps(value, 5)
        out[f"json.dumps {label}"] = lambda v=value: json.dumps(v, ensure_ascii=False)
        out[f"pickle.dumps {label}"] = lambda v=value: pickle.dumps(v, 5)
        out[f"json.loads {label}"] = lambda j=j: json.loads(j)
        out[f"pickle.loads {label}"] = lambda pk=pk: pickle.loads(pk)
    return out


def crossing_contenders() -> dict[str, Callable[[], Any]]:
    """The floor, and the same calls through each crossing."""
    runtimes = {c: _runtime.Runtime(crossing=c) for c in ("component", "core")}
    core = runtimes["core"]
    core.call("canonical.max-depth")
    instance = core._pool[0].core
    # The same core module through wasmtime-py's public API, for the second row.
    import wasmtime

    store = wasmtime.Store()
    module = wasmtime.Module(store.engine, _runtime.core_module(core.wasm))
    public_realloc = wasmtime.Instance(store, module, []).exports(store)["cabi_realloc"]
    assert isinstance(public_realloc, wasmtime.Func)

    def floor() -> None:
        q = instance.alloc(16, 1)
        a = instance.args
        a[0].i32, a[1].i32, a[2].i32, a[3].i32 = q, 16, 1, 0  # realloc to 0: a release
        instance.invoke(instance.realloc, 4)

    def public() -> None:
        q = public_realloc(store, 0, 0, 1, 16)
        public_realloc(store, q, 16, 1, 0)

    out: dict[str, Callable[[], Any]] = {
        "floor: two raw core calls": floor,
        "the same, public Func.__call__": public,
    }
    intent = oncely.Intent(SCOPE, RUN, "s-1", TOOL, json.dumps(args_of(1)))
    spec = core.call("keys.default-spec")
    start = replay_start()
    for crossing, rt in runtimes.items():
        if rt.call("canonical.canonicalize", DOC) != oncely.canonicalize(DOC):
            raise SystemExit(f"the {crossing} crossing and oncely disagree")
        out[f"canonicalize 94 B: {crossing}"] = lambda rt=rt: rt.call("canonical.canonicalize", DOC)
        out[f"keys.key: {crossing}"] = lambda rt=rt: rt.call("keys.key", intent, spec)
        out[f"effect.run of a replay: {crossing}"] = lambda rt=rt: rt.call_bytes(
            "effect.run", *start
        )
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7, help="alternating rounds (median reported)")
    p.add_argument("--min-time", type=float, default=0.2, help="seconds per measurement")
    a = p.parse_args()

    rt = _runtime.shared()
    inner, spent, made = rt._call, [0.0], [0]

    def timed(name: str, args: tuple[Any, ...], via: Any) -> Any:
        made[0] += 1
        t0 = time.perf_counter()
        try:
            return inner(name, args, via)
        finally:
            spent[0] += time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        replays, db, fn_runs = replay_contenders(tmp)
        contenders: dict[str, Callable[[], Any]] = {
            **crossing_contenders(),
            **replays,
            **codec_contenders(),
        }
        samples: dict[str, list[float]] = {k: [] for k in contenders}
        share: list[float] = []
        calls: list[float] = []
        for _ in range(a.rounds):
            for name, fn in contenders.items():
                if name == REPLAY:
                    rt._call, spent[0], t0 = timed, 0.0, time.perf_counter()  # type: ignore[method-assign]
                    made[0], before = 0, fn_runs[0]
                samples[name].append(per_call(fn, a.min_time))
                if name == REPLAY:
                    share.append(spent[0] / (time.perf_counter() - t0))
                    calls.append(made[0] / (fn_runs[0] - before))
                    rt._call = inner  # type: ignore[method-assign]
        db.close()

    t = {k: statistics.median(v) * 1e6 for k, v in samples.items()}
    print(f"wasmtime-py {_runtime.wasmtime_version()}; median of {a.rounds} alternating rounds\n")
    print("| what | µs per call |")
    print("|---|---|")
    for name, us in t.items():
        print(f"| {name} | {us:,.2f} |")
    inside = statistics.median(share)
    print(
        f"\na replay spends {inside:.0%} of its time in oncely's calls into the core "
        f"({statistics.median(calls):g} per replay, {t[REPLAY] * inside:,.1f} µs); two calls at "
        f"the floor take "
        f"{t['floor: two raw core calls']:,.1f} µs, the row's SELECT "
        f"{t['SELECT the row alone']:,.1f} µs"
    )
    parts = sum(us for name, us in t.items() if name.startswith(("replay, its parts", "  ")))
    print(
        f"the replay's parts, each alone, add up to {parts:,.1f} µs of its {t[REPLAY]:,.1f}; the"
        f" rest is Ledger.run's own calls and what a part costs in a sequence, not in a loop"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
