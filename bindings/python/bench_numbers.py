"""What canonicalizing numbers costs inside the core, for one or more builds of the component.

    python bindings/python/bench_numbers.py [--component A.wasm ...] [--rounds 5]

Each component's core module is called directly (a runtime whose crossing is ``core``:
allocate, copy, ``canonical.canonicalize``, read, post-return), on documents dense in numbers
of the shapes people send: ``bench.py``'s 64 KiB structured arguments, decimals with three
places, an embedding of 17-digit doubles, and doubles of every magnitude. Printed: the median
µs per call of each component over alternating rounds. Every component must give the same text
for every document. Without ``--component``, the shipped ``bindings/oncely-core.wasm``. To
compare with an earlier build: ``git show REV:bindings/oncely-core.wasm > /tmp/before.wasm``
and pass both.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import make_args
from oncely import _runtime


def canonicalizer(path: Path) -> Callable[[str], Any]:
    """``canonical.canonicalize`` of the core module of the component at ``path``."""
    rt = _runtime.Runtime(path.read_bytes(), crossing="core")
    return lambda text: rt.call("canonical.canonicalize", text)


def documents() -> dict[str, str]:
    rng = random.Random(1)
    return {
        "64 KiB structured arguments": json.dumps(make_args(65536, 65536), ensure_ascii=False),
        "2,000 decimals, 3 places": json.dumps(
            [round(rng.uniform(-1e6, 1e6), 3) for _ in range(2000)]
        ),
        "1,536 doubles of 17 digits": json.dumps([rng.random() for _ in range(1536)]),
        "1,000 doubles, 1e-300..1e300": json.dumps(
            [rng.random() * 10.0 ** rng.randrange(-300, 300) for _ in range(1000)]
        ),
    }


def per_call(fn: Callable[[], Any], n: int) -> float:
    fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--component", action="append", type=Path, help="a component (repeatable)")
    p.add_argument("--rounds", type=int, default=5, help="alternating rounds (median reported)")
    p.add_argument("--calls", type=int, default=40, help="calls per measurement")
    a = p.parse_args()
    paths = a.component or [Path(__file__).resolve().parents[1] / "oncely-core.wasm"]
    cores = {f"{i + 1}: {path}": canonicalizer(path) for i, path in enumerate(paths)}
    print("µs per canonical.canonicalize call, median of", a.rounds, "alternating rounds")
    for label, text in documents().items():
        outs = {c(text) for c in cores.values()}
        if len(outs) != 1:
            raise SystemExit(f"the components disagree on {label}")
        times: dict[str, list[float]] = {name: [] for name in cores}
        for _ in range(a.rounds):
            for name, core in cores.items():
                times[name].append(per_call(lambda c=core, t=text: c(t), a.calls))
        cells = " | ".join(f"{statistics.median(v):,.0f}" for v in times.values())
        print(f"{label} ({len(text):,} B) | {cells}")
    print("columns:", " | ".join(cores))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
