"""Key derivation speed: oncely (the WebAssembly core through wasmtime) against the usual pure
Python way — the PyPI ``rfc8785`` package for the canonical JSON, plus ``hashlib.sha256`` —
on arguments of about 200 B, 4 KiB and 64 KiB, measured in ONE run and printed as ratios.

    python bindings/python/bench.py [--rounds N] [--min-time S] [--json]

Two shapes of arguments: "structured" (many small fields: strings, integers, decimals,
booleans, nested objects and arrays) and "text" (a few fields and one long body, like an email).
What is timed, per shape and size (a JSON-compatible dict in, a hex digest out):

- baseline: ``hashlib.sha256(rfc8785.dumps(args)).hexdigest()``;
- ``oncely.derive_key(..., args=args)``: serialise with ``json.dumps``, then ONE component
  call (``keys.key``) that canonicalizes (RFC 8785), checks, and hashes the key preimage;
- ``oncely.derive_keys`` on a batch of 64 intents (one component call for the batch), per key;
- ``oncely.canonicalize`` on the JSON text against ``rfc8785.dumps`` (canonical form only);
- ``json.dumps`` of the dict alone (compact, non-ASCII as it is): what ``derive_key`` does
  first with a dict, so baseline ÷ its time ("ceiling") is the best ratio ``derive_key`` could
  reach with a core that took no time.

The baseline's digest is exactly oncely's fingerprint (SHA-256 of the canonical arguments); the
script checks that they agree before timing. Rounds alternate between the contenders and the
median of the rounds is reported, which keeps the ratios meaningful on a noisy machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from importlib import metadata
from typing import Any

import rfc8785

import oncely

SIZES = (("200 B", 200), ("4 KiB", 4 << 10), ("64 KiB", 64 << 10))
INTENT = {"scope": "acme", "run": "run-7", "step": "step-1", "tool": "create_ticket"}


def make_text_args(target: int, seed: int) -> dict[str, Any]:
    """Text-heavy arguments of about ``target`` bytes of JSON, like an email or a document
    handed to a tool: a few fields and one long body (prose, some non-ASCII, quotes, newlines)."""
    rng = random.Random(seed)
    words = ["the", "refund", "order", "was", "shipped", "café", "naïve", "東京", "“quoted”",
             "emoji🙂", "invoice", "#4521", "\n", "tab\t", "and", "customer", "€12.50"]  # fmt: skip
    args: dict[str, Any] = {
        "to": "customer@example.com",
        "subject": "Your order " + str(seed),
        "thread_id": f"th_{seed}",
        "body": "",
    }
    body: list[str] = []
    while len(json.dumps(args, ensure_ascii=False).encode()) + len(" ".join(body)) < target:
        sentence = " ".join(rng.choice(words) for _ in range(rng.randrange(6, 18)))
        body.append(sentence.capitalize() + (".\n" if rng.random() < 0.2 else "."))
    args["body"] = " ".join(body)
    return args


def make_args(target: int, seed: int) -> dict[str, Any]:
    """A realistic structured tool-argument object of about ``target`` bytes of JSON: strings
    (some non-ASCII), integers, decimals, booleans, nulls, nested objects and arrays."""
    rng = random.Random(seed)
    words = ["refund", "order", "customer", "é", "日本", "naïve", "Ωmega", "emoji🙂", "x"]

    def scalar() -> Any:
        k = rng.randrange(6)
        if k == 0:
            return rng.randrange(10**9)
        if k == 1:
            return round(rng.uniform(-1e6, 1e6), rng.randrange(1, 6))
        if k == 2:
            return " ".join(rng.choice(words) for _ in range(rng.randrange(1, 6)))
        if k == 3:
            return "".join(
                rng.choices(string.ascii_letters + string.digits, k=rng.randrange(4, 24))
            )
        return [True, False, None][rng.randrange(3)]

    args: dict[str, Any] = {"request_id": f"req_{seed}", "items": []}
    while len(json.dumps(args, ensure_ascii=False).encode()) < target:
        if rng.random() < 0.5:
            args["items"].append({f"f{j}": scalar() for j in range(rng.randrange(2, 6))})
        else:
            args[f"field_{len(args)}"] = scalar()
    return args


def per_call(fn: Callable[[], Any], min_time: float) -> float:
    """Seconds per call of ``fn``, over at least ``min_time`` seconds."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return dt / n
        n = max(n * 2, int(n * min_time / max(dt, 1e-9)) + 1)


def fmt_us(s: float) -> str:
    return f"{s * 1e6:,.1f} µs"


def main() -> int:  # noqa: C901 - one report, several tables
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7, help="alternating rounds (median reported)")
    p.add_argument("--min-time", type=float, default=0.15, help="seconds per measurement")
    p.add_argument("--json", action="store_true", help="print the results as JSON too")
    p.add_argument(
        "--cli",
        metavar="ONCELY",
        help="also time the Rust CLI (`ONCELY key --lines`, the same component under the Rust "
        "host) per key, for reference: the floor that the component's own work sets",
    )
    a = p.parse_args()

    oncely.derive_key(**INTENT, args={})  # load and compile the component before timing
    rows = []
    shapes = {"structured": make_args, "text": make_text_args}
    for (label, size), shape in [(s, sh) for sh in shapes for s in SIZES]:
        args = shapes[shape](size, seed=size)
        text = json.dumps(args, ensure_ascii=False)
        nbytes = len(text.encode())
        batch = [{**INTENT, "step": f"step-{i}", "args": args} for i in range(64)]

        # Same work: the baseline digest is oncely's fingerprint of the same arguments.
        baseline_digest = hashlib.sha256(rfc8785.dumps(args)).hexdigest()
        if oncely.derive(**INTENT, args=args).fingerprint != baseline_digest:
            print(f"{label}: oncely and rfc8785 disagree on the canonical form", file=sys.stderr)
            return 1
        if oncely.canonicalize(text).encode() != rfc8785.dumps(args):
            print(f"{label}: oncely and rfc8785 disagree on the canonical form", file=sys.stderr)
            return 1

        contenders: dict[str, Callable[[], Any]] = {
            "rfc8785+sha256": lambda args=args: hashlib.sha256(rfc8785.dumps(args)).hexdigest(),
            "oncely.derive_key": lambda args=args: oncely.derive_key(**INTENT, args=args),
            "oncely.derive_keys/64": lambda batch=batch: oncely.derive_keys(batch),
            "rfc8785.dumps": lambda args=args: rfc8785.dumps(args),
            "oncely.canonicalize": lambda text=text: oncely.canonicalize(text),
            # What any derivation that writes the dict as JSON text first cannot go below.
            "json.dumps": lambda args=args: json.dumps(
                args, ensure_ascii=False, separators=(",", ":")
            ),
        }
        samples: dict[str, list[float]] = {k: [] for k in contenders}
        for _ in range(a.rounds):
            for name, fn in contenders.items():
                samples[name].append(per_call(fn, a.min_time))
        t = {k: statistics.median(v) for k, v in samples.items()}
        t["oncely.derive_keys/64"] /= 64
        rows.append(
            {
                "shape": shape,
                "size": label,
                "bytes": nbytes,
                "baseline_s": t["rfc8785+sha256"],
                "derive_key_s": t["oncely.derive_key"],
                "derive_keys_per_key_s": t["oncely.derive_keys/64"],
                "rfc8785_dumps_s": t["rfc8785.dumps"],
                "canonicalize_s": t["oncely.canonicalize"],
                "json_text_s": t["json.dumps"],
                "ceiling": t["rfc8785+sha256"] / t["json.dumps"],
                "ratio_derive_key": t["rfc8785+sha256"] / t["oncely.derive_key"],
                "ratio_derive_keys": t["rfc8785+sha256"] / t["oncely.derive_keys/64"],
                "ratio_canonicalize": t["rfc8785.dumps"] / t["oncely.canonicalize"],
            }
        )

    print(
        f"Python {platform.python_version()} on {platform.machine()}, wasmtime-py "
        f"{metadata.version('wasmtime')}, rfc8785 {metadata.version('rfc8785')}; "
        f"median of {a.rounds} alternating rounds"
    )
    print("ratio = baseline time / oncely time (above 1: oncely is faster)\n")
    head = ("args", "shape", "rfc8785+sha256", "oncely.derive_key", "ratio", "derive_keys/key",
            "ratio", "rfc8785.dumps", "oncely.canonicalize", "ratio", "json.dumps",
            "ceiling")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] * len(head)) + "|")
    for r in rows:
        print(
            f"| {r['size']} ({r['bytes']:,} B) | {r['shape']} | {fmt_us(r['baseline_s'])} | "
            f"{fmt_us(r['derive_key_s'])} | **{r['ratio_derive_key']:.2f}×** | "
            f"{fmt_us(r['derive_keys_per_key_s'])} | {r['ratio_derive_keys']:.2f}× | "
            f"{fmt_us(r['rfc8785_dumps_s'])} | {fmt_us(r['canonicalize_s'])} | "
            f"{r['ratio_canonicalize']:.2f}× | {fmt_us(r['json_text_s'])} | {r['ceiling']:.1f}× |"
        )
    print()
    for shape in shapes:
        mine = [r for r in rows if r["shape"] == shape]
        small, large = mine[0]["ratio_derive_key"], mine[-1]["ratio_derive_key"]
        print(
            f"goals ({shape}): not slower at 200 B ({small:.2f}× "
            f"{'met' if small >= 1 else 'NOT met'}), at least 10× faster at 64 KiB "
            f"({large:.1f}× {'met' if large >= 10 else 'NOT met'}; "
            f"ceiling {mine[-1]['ceiling']:.1f}×)"
        )
    print(
        "ceiling = baseline time / json.dumps time: writing the dict as compact JSON text, the "
        "first thing\nderive_key does with a dict, bounds its ratio from above even with a core "
        "that takes no time"
    )
    calls = call_overhead(a.rounds, a.min_time)
    print(
        "\none component call: wasmtime-py's public Func.__call__ against oncely's compiled codec"
    )
    print("| call | wasmtime-py Func.__call__ | oncely | ratio |")
    print("|---|---|---|---|")
    for name, (theirs, ours) in calls.items():
        print(f"| {name} | {fmt_us(theirs)} | {fmt_us(ours)} | {theirs / ours:.1f}× |")
    cli: dict[str, float] = {}
    if a.cli:
        cli = rust_cli_per_key(a.cli, shapes)
        print(
            "\nthe Rust host (`oncely key --lines`: same component, wasmtime's Rust API), per key"
        )
        print("| args | shape | Rust CLI | rfc8785+sha256 / Rust CLI |")
        print("|---|---|---|---|")
        for r in rows:
            t = cli[f"{r['shape']} {r['size']}"]
            print(f"| {r['size']} | {r['shape']} | {fmt_us(t)} | {r['baseline_s'] / t:.2f}× |")
    if a.json:
        print(json.dumps({"rows": rows, "calls": calls, "rust_cli": cli}, indent=2))
    return 0


def rust_cli_per_key(
    cli: str, shapes: dict[str, Callable[[int, int], dict[str, Any]]]
) -> dict[str, float]:
    """Seconds per key of the Rust CLI on the same arguments: ``n + 1`` intents minus one
    (to cancel the process start), best of 3."""
    import subprocess

    out = {}
    for shape, make in shapes.items():
        for label, size in SIZES:
            args = json.dumps(make(size, size), ensure_ascii=False)

            def lines(n: int, args: str = args) -> str:
                rows = []
                for i in range(n):
                    head = json.dumps({**INTENT, "step": f"step-{i}"})
                    rows.append(head[:-1] + ', "args": ' + args + "}")
                return "\n".join(rows) + "\n"

            def best(data: str) -> float:
                times = []
                for _ in range(3):
                    t0 = time.perf_counter()
                    subprocess.run([cli, "key", "--lines"], input=data, text=True,
                                   capture_output=True, check=True)  # fmt: skip
                    times.append(time.perf_counter() - t0)
                return min(times)

            n = max(20, 400_000 // size)
            out[f"{shape} {label}"] = (best(lines(n + 1)) - best(lines(1))) / n
    return out


def call_overhead(rounds: int, min_time: float) -> dict[str, tuple[float, float]]:
    """The same export called through wasmtime-py's public API and through oncely's runtime
    (the core crossing, ``oncely._abi``)."""
    import wasmtime
    from wasmtime import component as wc

    from oncely import _runtime

    rt = _runtime.shared()
    c = rt.components
    store = wasmtime.Store(c.engine)
    instance = c.linker.instantiate(store, c.component)
    canon = instance.get_func(store, c.indices["canonical.canonicalize"])
    derive = instance.get_func(store, c.indices["keys.derive"])
    assert canon is not None and derive is not None
    args = json.dumps(make_args(200, 200), ensure_ascii=False)
    intent = wc.Record()
    for k, v in (("scope", "acme"), ("run-id", "r"), ("step-id", "s"), ("tool", "t"),
                 ("args-json", args)):  # fmt: skip
        setattr(intent, k, v)
    spec = wc.Record()
    spec.only, spec.ignore, spec.identity = None, [], "step"
    ours_intent = oncely.Intent("acme", "r", "s", "t", args)
    ours_spec = oncely.default_spec()
    pairs = {
        "canonicalize('[1]')": (
            lambda: canon(store, "[1]"),
            lambda: rt.call("canonical.canonicalize", "[1]"),
        ),
        "keys.derive (200 B args)": (
            lambda: derive(store, intent, spec),
            lambda: rt.call("keys.derive", ours_intent, ours_spec),
        ),
    }
    out = {}
    for name, (theirs, ours) in pairs.items():
        t: list[float] = []
        o: list[float] = []
        for _ in range(rounds):
            t.append(per_call(theirs, min_time))
            o.append(per_call(ours, min_time))
        out[name] = (statistics.median(t), statistics.median(o))
    return out


if __name__ == "__main__":
    sys.exit(main())
