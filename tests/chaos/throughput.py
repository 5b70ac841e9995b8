#!/usr/bin/env python3
"""Ledger throughput with 1, 8 and 32 worker processes, on PostgreSQL, on a Redis Cluster and on
DynamoDB-local (``scripts/bench --only throughput``; docs/performance.md).

The workers are the chaos harness's (tests/chaos/chaos.py): processes of the Rust test worker
``target/release/oncely-test-worker`` in batch mode (``--steps-file``), each walking a block of
fresh intents of its own, through the harness's own servers — a PostgreSQL cluster, and three
Redis masters with a replica each (``appendonly yes``, ``appendfsync always``). DynamoDB, which
the Rust host does not open, runs the JavaScript test worker (``bindings/js/test/helpers/
worker.mjs``, the same options and lines) against moto's server mode (tests/dynamodb/start.sh),
which serves one request at a time: there the figure is the store's overhead and what one
serialized server gives, not DynamoDB's scaling; and fewer effects per process
(``PER_PROCESS``). A process's tool
appends one line to a marker file (O_APPEND, fsynced), as in the chaos runs; the marker lives on
/dev/shm where there is one, so that its fsync costs nothing and the figure is the ledger's.

Per backend and process count, one run: effects/s = effects / wall time, from the first spawn to
the last exit (each process's start, a few tens of ms, is in it; it is measured on its own and
printed). The ratio printed is against one process on the same backend: how throughput grows
with processes. Every run is then checked as the chaos harness checks a phase: every intent
executed exactly once and ``done`` in the ledger, no worker error.

    python3 tests/chaos/throughput.py [--quick] [--procs 1,8,32] [--backends postgres,redis-cluster]
                                      [--effects N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chaos  # the harness's servers, workers and checks

BACKENDS = ("postgres", "redis-cluster", "dynamodb")
WORKER = {"dynamodb": "js"}  # the language of a backend's workers: Rust unless named here
# Fresh effects per process (full, --quick) where the default (1,000; 200) would take long.
PER_PROCESS = {"dynamodb": (100, 20)}


def run(env: chaos.Env, backend: str, db: str, procs: int, per_proc: int, scopes: str) -> dict[str, Any]:
    """``procs`` processes at once, each walking ``per_proc`` fresh intents of its own: all in one
    scope (``scopes == "one"``) or each process in a scope of its own (``"per-process"``; on a
    cluster, scopes hash to different masters)."""
    n_phases = procs if scopes == "per-process" else 1
    phases = [chaos.Phase(backend, f"throughput-{scopes}-{procs}-{k}", db, f"tp-{scopes}-{procs}-{k}-{backend}", env)
              for k in range(n_phases)]
    lang = WORKER.get(backend, "rust")
    blocks = [[f"p{p}-{i}" for i in range(per_proc)] for p in range(procs)]
    for p, b in enumerate(blocks):
        steps = phases[p % n_phases].steps.setdefault(chaos.LOOKUP[0], [])
        steps += b
    t = time.monotonic()
    workers = [(phases[p % n_phases], phases[p % n_phases].spawn(lang, chaos.LOOKUP, 60_000, b,
                                                                 "--reconcile-from-marker"))
               for p, b in enumerate(blocks)]
    for ph, w in workers:
        ph.reap(w)
    wall = time.monotonic() - t
    effects = procs * per_proc
    executions = fresh = 0
    failures = []
    for ph in phases:
        chaos.verify(ph)
        executions += ph.figures["executions"]
        fresh += ph.fresh.total()
        failures += ph.failures
    if executions != effects or fresh != effects:
        failures.append(f"{executions} executions and {fresh} fresh results for {effects} intents")
    if failures:
        raise chaos.Failure(f"{backend}, {procs} processes: " + "; ".join(failures))
    return {"backend": backend, "scopes": scopes, "processes": procs, "effects": effects,
            "wall_s": round(wall, 2), "effects_per_s": round(effects / wall)}


def startup(env: chaos.Env, backend: str, db: str) -> float:
    """Seconds one process takes for one effect (its start, the ledger's open, one effect)."""
    ph = chaos.Phase(backend, "startup", db, f"startup-{backend}", env)
    took = []
    for i in range(3):
        t = time.monotonic()
        ph.run_all([(WORKER.get(backend, "rust"), [f"s{i}"])], chaos.LOOKUP, 60_000)
        took.append(time.monotonic() - t)
    return sorted(took)[1]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="200 effects per process instead of 1,000")
    p.add_argument("--procs", default="1,8,32", help="process counts, comma-separated (default: %(default)s)")
    p.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated: %(default)s")
    p.add_argument("--effects", type=int, help="fresh effects per process")
    p.add_argument("--scopes", default="one", choices=("one", "per-process"),
                   help="every intent in one scope, or each process's in a scope of its own (default: %(default)s)")
    p.add_argument("--json", help="write the rows as JSON to this file")
    a = p.parse_args()
    procs = [int(x) for x in a.procs.split(",") if x]
    backends = [b for b in a.backends.split(",") if b]
    bad = [b for b in backends if b not in BACKENDS]
    if bad:
        p.error(f"unknown backend: {', '.join(bad)} (one of {', '.join(BACKENDS)})")
    per_proc = a.effects or (200 if a.quick else 1000)
    chaos.ensure_binaries(build=False)
    langs = sorted({WORKER.get(b, "rust") for b in backends})
    if "js" in langs:
        chaos.ensure_js()
    shm = Path("/dev/shm")
    work = Path(tempfile.mkdtemp(prefix="oncely-throughput.", dir=shm if shm.is_dir() else None))
    (work / "out").mkdir()
    env = chaos.Env(work, None, work / "cache", random.Random(0))
    rows: list[dict[str, Any]] = []
    try:
        chaos.warm_up(env, langs)
        for backend in backends:
            server = chaos.start_server(backend, "always")
            assert server is not None
            per = PER_PROCESS[backend][1 if a.quick else 0] if backend in PER_PROCESS and not a.effects else per_proc
            try:
                start_s = startup(env, backend, server.url)
                for n in procs:
                    row = run(env, backend, server.url, n, per, a.scopes)
                    row["startup_s"] = round(start_s, 3)
                    rows.append(row)
                    print(f"  {backend:13} {n:>3} processes: {row['effects']:>6} effects in {row['wall_s']:>6.2f} s "
                          f"-> {row['effects_per_s']:>6,} effects/s", flush=True)
            finally:
                server.stop()
    except chaos.Failure as e:
        print(f"throughput: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        for proc in env.spawned:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        shutil.rmtree(work, ignore_errors=True)
    cores = os.cpu_count()
    print(f"\nledger throughput by worker processes (one run each; test workers in batch mode: "
          f"Rust, JavaScript on DynamoDB; scopes: {a.scopes}; {cores} cores; ratio = against 1 process)")
    print(f"  {'backend':13} {'processes':>9} {'effects/proc':>12} {'effects/s':>10} {'ratio':>6}  "
          f"{'1-process start':>15}")
    for r in rows:
        one = next((x for x in rows if x["backend"] == r["backend"] and x["processes"] == 1), None)
        ratio = f"{r['effects_per_s'] / one['effects_per_s']:.2f}x" if one else "-"
        print(f"  {r['backend']:13} {r['processes']:>9} {r['effects'] // r['processes']:>12} "
              f"{r['effects_per_s']:>10,} {ratio:>6}  {r['startup_s']:>13.3f} s")
    if a.json:
        Path(a.json).write_text(json.dumps({"cores": cores, "per_process": per_proc, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
