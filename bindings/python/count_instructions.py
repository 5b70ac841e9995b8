"""Instructions per operation, counted by callgrind: what a change to the core or to the Python
host costs, where timing cannot tell (this machine's CPU time per effect varies by ±30 % from one
batch to the next; an instruction count is the same from run to run).

    python bindings/python/count_instructions.py [--component PATH ...] [--ops OP,...]

For each component (default: the one the package loads) and each operation, the script runs
``valgrind --tool=callgrind --smc-check=all`` over this same file in ``--loop`` mode twice, with
N and with 2N repetitions of the operation after the same set-up, and prints the difference
over N: the instructions of one operation, the interpreter's start, the component's load and
the set-up cancelled out. The component is given to the package by ``$ONCELY_CORE_WASM``; the
first run of each component fills the compiled-module cache, which the counted runs then load.

Operations (the bench's intent, policy and tool, ``bench_ledger.py``; SQLite in a temporary
directory, on ``/dev/shm`` where there is one, so that no ``fsync`` waits):

- ``fresh``: ``Ledger.run`` of a new intent (a claim, the tool, the record)
- ``replay``: ``Ledger.run`` of an intent already done (after 2N fresh ones in the set-up)
- ``key200``, ``key64k``: ``derive_key`` of ``bench.py``'s structured arguments of 200 B, 64 KiB
- ``canon64k``: ``canonicalize`` of the same 64 KiB as JSON text

Needs valgrind (Debian's ``valgrind``); ``--loop OP N`` alone runs the loop without it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OPS = ("fresh", "replay", "key200", "key64k", "canon64k")
# Repetitions per counted run, by operation (the larger run does twice as many).
REPS = {"fresh": 100, "replay": 200, "key200": 400, "key64k": 24, "canon64k": 24}


def loop(op: str, n: int) -> str:
    """The set-up of ``op`` (the same whatever n), then n of it; what the last one answered."""
    override = os.environ.get("ONCELY_CORE_WASM")
    if override:
        # Another build of the same WIT: the mirrors hold for it (main() checks its answers
        # against the package's component), so the core crossing may take it.
        from oncely import _exports

        _exports.COMPONENT_SHA256 = hashlib.sha256(Path(override).read_bytes()).hexdigest()
    import oncely

    sys.path.insert(0, str(HERE))
    import bench
    import bench_ledger as bl

    if op in ("fresh", "replay"):
        base = "/dev/shm" if os.path.isdir("/dev/shm") else None
        with tempfile.TemporaryDirectory(dir=base) as tmp:
            ledger = oncely.Ledger.sqlite(Path(tmp) / "count.db")
            policy = oncely.parse_policy(bl.POLICY_DOC)

            def run(i: int) -> Any:
                return ledger.run(
                    bl.refund,
                    scope=bl.SCOPE,
                    run=bl.RUN,
                    step=f"count-{i}",
                    tool=bl.TOOL,
                    args=bl.args_of(i),
                    policy=policy,
                )

            run(-1)  # the first effect's one-time work (statements prepared, pages read)
            if op == "replay":
                for i in range(2 * REPS["replay"]):
                    run(i)
            answer: Any = None
            for i in range(n):
                r = run(i)
                answer = (r.value, r.key, r.replayed)
            ledger.close()
        return repr(answer)
    size = 200 if op == "key200" else 64 << 10
    args: Any = bench.make_args(size, seed=7)
    text = json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    intent = bench.INTENT
    for _ in range(3):  # the memory the largest call needs, grown before the counted ones
        answer = (
            oncely.derive_key(**intent, args=args)
            + hashlib.sha256(oncely.canonicalize(text).encode()).hexdigest()
        )
    for _ in range(n):
        if op == "canon64k":
            oncely.canonicalize(text)
        else:
            oncely.derive_key(**intent, args=args)
    return answer


def answers(op: str, env: dict[str, str]) -> str:
    """What one ``op`` answers with the component ``env`` gives (no valgrind)."""
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--loop", op, "1"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"count_instructions: {op} failed:\n{out.stderr[-2000:]}")
    return out.stdout.strip()


def count(op: str, n: int, env: dict[str, str]) -> int:
    """Instructions callgrind collected over a whole ``--loop op n`` process."""
    out = subprocess.run(
        [
            *("valgrind", "--tool=callgrind", "--smc-check=all", "--callgrind-out-file=/dev/null"),
            *(sys.executable, str(Path(__file__).resolve()), "--loop", op, str(n)),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or found is None:
        raise SystemExit(f"count_instructions: {op} x {n} failed:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--component", action="append", default=[], metavar="PATH",
                    help="a component to count (repeatable; default: the package's)")  # fmt: skip
    ap.add_argument("--ops", default=",".join(OPS), help=f"of {','.join(OPS)} (all)")
    ap.add_argument("--loop", nargs=2, metavar=("OP", "N"), help="run the loop only")
    a = ap.parse_args()
    if a.loop:
        print(loop(a.loop[0], int(a.loop[1])))
        return 0
    ops = [op for op in a.ops.split(",") if op]
    if unknown := [op for op in ops if op not in OPS]:
        ap.error(f"unknown operation(s): {', '.join(unknown)}")
    if shutil.which("valgrind") is None:
        ap.error("valgrind is not on the PATH (Debian: apt-get install valgrind)")
    components = a.component or [None]
    header = "| operation | " + " | ".join(
        Path(c).name if c else "the package's component" for c in components
    )
    print("Instructions per operation (callgrind; the difference of 2N and N over N)\n")
    print(header + " |")
    print("|---" * (len(components) + 1) + "|")
    for op in ops:
        cells = []
        expected = answers(op, dict(os.environ, ONCELY_CORE_WASM=""))
        for comp in components:
            env = dict(os.environ, ONCELY_CORE_WASM="")
            if comp:
                env["ONCELY_CORE_WASM"] = str(Path(comp).resolve())
            # Also fills the compiled-module cache the counted runs load.
            if (got := answers(op, env)) != expected:
                raise SystemExit(
                    f"count_instructions: {comp} answers {op} with {got}, the package's"
                    f" component with {expected}: not a build of the same WIT"
                )
            n = REPS[op]
            per = (count(op, 2 * n, env) - count(op, n, env)) / n
            cells.append(f"{per:,.0f}")
        print(f"| {op} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
