"""Cold start: ``import oncely`` and a first key in a fresh process, against the named peer.

Each round starts fresh interpreters, alternating: one imports oncely and derives a first key
(the compiled component from the on-disk cache, warmed before the rounds), one imports
``json`` and ``hashlib`` and hashes the same arguments (the peer: what a hand-rolled key costs),
one imports only wasmtime-py (the floor: the runtime a first key needs).
The time is taken inside the process, from before the import to after the key, so the
interpreter's own start is left out of both. The modules' bytecode is cached as an installed
package has it (pip compiles it at install): the processes may write it even where
``PYTHONDONTWRITEBYTECODE`` is set, which would otherwise measure compiling every module.
Prints the medians, the difference and the goals (issue 26: oncely <= 50 ms, and <= 15 ms more
than the peer).

    python bench_cold.py [--rounds 21]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

ONCELY = """
import time
t0 = time.perf_counter()
import oncely
t1 = time.perf_counter()
oncely.derive_key(scope="acme", run="run-7", step="refund-1", tool="refund",
                  args={"charge_id": "ch_1", "amount": 500})
t2 = time.perf_counter()
print(t2 - t0, t2 - t1)
"""

PEER = """
import time
t0 = time.perf_counter()
import hashlib, json
args = {"charge_id": "ch_1", "amount": 500}
text = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
hashlib.sha256(("acme\\0run-7\\0refund-1\\0refund\\0" + text).encode()).hexdigest()
print(time.perf_counter() - t0)
"""

# The floor under oncely's number: the runtime it needs for a first key (wasmtime-py imports
# ctypes declarations of its whole C API, and dataclasses, inspect, pathlib and platform).
RUNTIME = """
import time
t0 = time.perf_counter()
import wasmtime, wasmtime.component
print(time.perf_counter() - t0)
"""


def once(code: str) -> float:
    """The first number the process prints (the whole time)."""
    return times(code)[0]


def times(code: str) -> list[float]:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV
    )
    return [float(x) for x in out.stdout.split()]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=21, help="alternating rounds (medians reported)")
    a = p.parse_args()
    # The compiled component and the bytecode into their caches: the rounds measure warm caches.
    once(ONCELY)
    once(PEER)
    mine, key, peer, runtime = [], [], [], []
    for _ in range(a.rounds):
        total, first_key = times(ONCELY)
        mine.append(total)
        key.append(first_key)
        peer.append(once(PEER))
        runtime.append(once(RUNTIME))
    m, b = statistics.median(mine) * 1e3, statistics.median(peer) * 1e3
    w = statistics.median(runtime) * 1e3
    k = statistics.median(key) * 1e3
    print(f"\ncold start, median of {a.rounds} fresh processes (import + first key, in-process)")
    print(f"  import oncely + derive_key: {m:6.1f} ms (goal <= 50 ms)")
    print(f"  import json, hashlib + a hash: {b:6.1f} ms")
    print(f"  oncely - peer: {m - b:6.1f} ms (goal <= 15 ms)")
    print(f"  of which the first key (after the import): {k:6.1f} ms")
    print(f"  import wasmtime, wasmtime.component alone: {w:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
