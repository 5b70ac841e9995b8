#!/usr/bin/env python3
"""What `oncely mcp` adds to a call: one run, the same real MCP client (the `mcp` SDK) and the
same server (payments_server.py over stdio), called directly and through the gateway on SQLite
and on PostgreSQL, in alternating rounds. Prints the median latency per call and the gateway's
added time and ratio against the direct call.

    python bench.py [--calls N] [--rounds R] [--pg URL]      (scripts/bench --only mcp)

Calls: a pass-through tool (`find_charge`, read-only), a keyed tool's fresh effect (`charge`,
new arguments each time: claim, call, record) and its replay (`charge` again with the same
arguments: the recorded result; directly, that would charge again, so the direct column is a
fresh charge).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402
from agent import Agent  # noqa: E402


async def timed(agent: Agent, tool: str, args_of: Any, n: int) -> list[float]:
    out = []
    for i in range(n):
        args = args_of(i)
        t = time.perf_counter()
        r = await agent.call(tool, args, timeout_s=30)
        out.append(time.perf_counter() - t)
        if r.is_error:
            raise SystemExit(f"bench: {tool} failed: {r}")
    return out


async def one(target: list[str], n: int, tag: str, errlog: Any) -> dict[str, list[float]]:
    async with Agent(target, errlog=errlog) as a:
        await a.call("find_charge", {"customer": "warm", "amount_cents": 1}, timeout_s=30)
        samples = {
            "pass-through": await timed(
                a, "find_charge", lambda i: {"customer": f"c{i}", "amount_cents": 100}, n
            ),
            "keyed, fresh": await timed(
                a,
                "charge",
                lambda i: {"customer": f"{tag}-{time.time_ns()}-{i}", "amount_cents": 100},
                n,
            ),
        }
        fixed = {"customer": f"{tag}-replay-{time.time_ns()}", "amount_cents": 100}
        samples["keyed, replay"] = await timed(a, "charge", lambda i: fixed, n)
        return samples


async def main() -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--pg", default=os.environ.get("ONCELY_TEST_POSTGRES_URL"))
    a = p.parse_args()
    oncely = str(harness.oncely_bin())
    with tempfile.TemporaryDirectory() as tmp:
        # Each connection gets a charges file of its own: find_charge reads the whole file, and
        # one shared by all would make later rounds slower.
        def server(charges: str) -> list[str]:
            return [harness.PY, str(harness.SERVER), "--charges", charges]

        # One run (the client speaks protocol 2026-07-28, which has no session to be one).
        setups = {
            "direct": server,
            "gateway, SQLite": lambda c: [
                oncely,
                "mcp",
                "--db",
                f"{tmp}/ledger.db",
                "--run",
                "bench",
                "--",
                *server(c),
            ],
        }
        if a.pg:
            setups["gateway, PostgreSQL"] = lambda c: [
                oncely,
                "mcp",
                "--db",
                a.pg,
                "--run",
                "bench",
                "--",
                *server(c),
            ]
        samples: dict[str, dict[str, list[float]]] = {s: {} for s in setups}
        with open(f"{tmp}/stderr.log", "w") as errlog:
            for r in range(a.rounds):
                for i, (name, target_of) in enumerate(setups.items()):
                    target = target_of(f"{tmp}/charges-{r}-{i}.jsonl")
                    got = await one(target, a.calls, f"r{r}-{name}", errlog)
                    for op, xs in got.items():
                        samples[name].setdefault(op, []).extend(xs)
    ops = ["pass-through", "keyed, fresh", "keyed, replay"]
    print(f"oncely mcp: median latency per call, {a.rounds} rounds x {a.calls} calls, one run")
    print(f"{'':22}" + "".join(f"{op:>26}" for op in ops))
    direct = {op: statistics.median(samples["direct"][op]) for op in ops}
    # Directly, a "replay" is another fresh charge: compare with that.
    direct["keyed, replay"] = direct["keyed, fresh"]
    for name in setups:
        cells = []
        for op in ops:
            m = statistics.median(samples[name][op])
            if name == "direct":
                cells.append(f"{m * 1e3:8.2f} ms")
            else:
                cells.append(
                    f"{m * 1e3:8.2f} ms ({(m - direct[op]) * 1e3:+6.2f}, x{m / direct[op]:4.2f})"
                )
        print(f"{name:22}" + "".join(f"{c:>26}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
