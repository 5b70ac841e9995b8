#!/usr/bin/env python3
"""Ledger cost per effect: oncely against the simplest correct hand-written ledger, in ONE run.

    python bindings/python/bench_ledger.py [--postgres URL] [--dynamodb ENDPOINT] [--procs 8]
                                           [--quick]
                                           [--rounds N] [--seconds S] [--json PATH]
                                           [--profile N]

Needs the installed package (``pip install bindings/python``, plus psycopg for ``--postgres``,
boto3 for ``--dynamodb``);
``scripts/bench`` installs it into ``target/bench/py-venv`` and runs this.

Two measures per backend, each in effects per second:

- **fresh**: distinct intents. oncely: ``ledger.run(tool, scope=, run=, step=, tool=, args=,
  policy=)`` (claim ``pending`` → call the tool → record the result). Baseline: derive a key
  (SHA-256 of a JSON string of the intent, arguments as sorted compact JSON), ``INSERT`` a
  ``pending`` row under a unique ``(scope, key)``, call the same no-op tool, ``UPDATE`` the row
  to ``done`` with the JSON result.
- **replay**: the same intents again. oncely returns the recorded result (``replayed``);
  baseline: ``SELECT`` by ``(scope, key)`` and ``json.loads`` the result.

The baseline is correct (a conflicting ``INSERT`` falls back to the ``SELECT``; a ``SELECT``
that finds nothing falls back to the ``INSERT``), and on each measure it takes its shortest path
— as if it knew whether the intent was new — so it is the fastest a hand-written ledger of the
same durability can be: stdlib ``sqlite3`` on its own file with oncely's settings (WAL,
``synchronous=FULL``, autocommit, ``WITHOUT ROWID`` primary key), or ``psycopg`` in autocommit
on the same server as oncely's ledger. On DynamoDB the baseline is a ``PutItem`` conditioned on
``attribute_not_exists`` (the ``pending`` item), the tool, an ``UpdateItem`` to ``done`` with the
result, and a consistent ``GetItem`` for a replay — through the very boto3 client oncely's store
uses, on a table of its own on the same server.

Each backend runs with one worker and with ``--procs`` (default 8): SQLite's one worker in this
process, every other row in worker processes, each with its own oncely ``Ledger`` and its own
baseline connection on the same files or database, started together.

Method: rounds alternate between the contenders (the order flips every round); in each round
each contender runs for ``--seconds`` and its rate is recorded; the figure reported for each is
the **median** over the rounds (best also printed), and the ratio is oncely ÷ baseline of those
medians ("paired": the median of the per-round ratios, a check on drift). The machine is
shared: trust the ratios, not the absolute rates.

On SQLite it also counts the pages each side writes per fresh effect (frames appended to the
write-ahead log by 50 fresh effects: a count, not a time; issue 26 item 2 measures rows and
writes by it).

``--profile N`` then runs N fresh SQLite effects, then their N replays, under cProfile and prints
where oncely's time goes (top functions by own time, then by cumulative time).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import os
import platform
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import oncely

SCOPE = "bench"
RUN = "run-1"
TOOL = "refund"
POLICY_DOC = {
    "class": "irreversible-external",
    "key": {},
    "reconcile": "provider-idempotent",
}
RESULT = {"refund_id": "re_1", "status": "succeeded"}


def refund(idempotency_key: str) -> dict[str, str]:
    """The tool: a no-op that returns a small JSON object (the same on both sides)."""
    return RESULT


def args_of(i: int) -> dict[str, Any]:
    return {"charge_id": f"ch_{i}", "amount": 500, "currency": "usd"}


def ms() -> int:
    return int(time.time() * 1000)


# --- the baseline: a hand-written ledger ------------------------------------------------------

BASELINE_SQLITE = """CREATE TABLE IF NOT EXISTS baseline_effects (
    scope TEXT NOT NULL, key TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,
    state TEXT NOT NULL, result TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    PRIMARY KEY (scope, key)) WITHOUT ROWID"""
BASELINE_POSTGRES = """CREATE TABLE IF NOT EXISTS baseline_effects (
    scope TEXT NOT NULL, key TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,
    state TEXT NOT NULL, result TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
    PRIMARY KEY (scope, key))"""


class Baseline:
    """The simplest correct ledger by hand: one row per (scope, key), pending then done."""

    def __init__(self, conn: Any, placeholder: str) -> None:
        self.conn = conn
        p = placeholder
        self.insert = (
            "INSERT INTO baseline_effects (scope, key, tool, args, state, created_at, updated_at) "
            f"VALUES ({p}, {p}, {p}, {p}, 'pending', {p}, {p}) ON CONFLICT (scope, key) DO NOTHING"
        )
        self.update = (
            f"UPDATE baseline_effects SET state = 'done', result = {p}, updated_at = {p} "
            f"WHERE scope = {p} AND key = {p}"
        )
        self.select = f"SELECT state, result FROM baseline_effects WHERE scope = {p} AND key = {p}"

    def effect(
        self,
        fn: Callable[[str], Any],
        scope: str,
        run: str,
        step: str,
        tool: str,
        args: dict[str, Any],
        *,
        assume_new: bool,
    ) -> tuple[Any, bool]:
        """Run ``fn`` at most once per intent; returns (value, replayed)."""
        args_text = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        preimage = json.dumps([scope, run, step, tool, args_text], ensure_ascii=False)
        key = hashlib.sha256(preimage.encode()).hexdigest()
        if not assume_new:
            row = self.find(scope, key)
            if row is not None:
                return self._settled(row, key), True
        if not self.claim(scope, key, tool, args_text, ms()):
            return self._settled(self.find(scope, key), key), True
        value = fn(key)
        self.finish(scope, key, json.dumps(value), ms())
        return value, False

    def find(self, scope: str, key: str) -> tuple[str, str | None] | None:
        """(state, result) of the row, if there is one."""
        row: tuple[str, str | None] | None = self.conn.execute(self.select, (scope, key)).fetchone()
        return row

    def claim(self, scope: str, key: str, tool: str, args_text: str, now: int) -> bool:
        """Write the ``pending`` row unless there is one; whether it was written."""
        c = self.conn.execute(self.insert, (scope, key, tool, args_text, now, now))
        return bool(c.rowcount == 1)

    def finish(self, scope: str, key: str, result: str, now: int) -> None:
        self.conn.execute(self.update, (result, now, scope, key))

    @staticmethod
    def _settled(row: Any, key: str) -> Any:
        state, result = row
        if state != "done":
            raise RuntimeError(f"{key} is {state}: in progress elsewhere")
        return json.loads(result)


def sqlite_baseline(path: str) -> Baseline:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute(BASELINE_SQLITE)
    return Baseline(conn, "?")


class DynamoBaseline(Baseline):
    """The same ledger by hand in DynamoDB: an item per (scope, key), pending then done."""

    def __init__(self, client: Any, table: str) -> None:
        self.client, self.table = client, table

    def find(self, scope: str, key: str) -> tuple[str, str | None] | None:
        ident = {"scope": {"S": scope}, "key": {"S": key}}
        got = self.client.get_item(TableName=self.table, Key=ident, ConsistentRead=True)
        item = got.get("Item")
        return None if item is None else (item["state"]["S"], item.get("result", {}).get("S"))

    def claim(self, scope: str, key: str, tool: str, args_text: str, now: int) -> bool:
        c = self.client
        try:
            c.put_item(
                TableName=self.table,
                Item={"scope": {"S": scope}, "key": {"S": key}, "tool": {"S": tool},
                      "args": {"S": args_text}, "state": {"S": "pending"},
                      "created_at": {"N": str(now)}, "updated_at": {"N": str(now)}},
                ConditionExpression="attribute_not_exists(#k)",
                ExpressionAttributeNames={"#k": "key"},
            )  # fmt: skip
        except c.exceptions.ConditionalCheckFailedException:
            return False
        return True

    def finish(self, scope: str, key: str, result: str, now: int) -> None:
        self.client.update_item(
            TableName=self.table, Key={"scope": {"S": scope}, "key": {"S": key}},
            UpdateExpression="SET #s = :done, #r = :r, updated_at = :now",
            ExpressionAttributeNames={"#s": "state", "#r": "result"},
            ExpressionAttributeValues={":done": {"S": "done"}, ":r": {"S": result},
                                       ":now": {"N": str(now)}},
        )  # fmt: skip


def dynamodb_table(client: Any, table: str) -> None:
    """The baseline's table: (scope, key), on demand, as the store makes its own."""
    client.create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "scope", "KeyType": "HASH"},
                   {"AttributeName": "key", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "scope", "AttributeType": "S"},
                              {"AttributeName": "key", "AttributeType": "S"}],
    )  # fmt: skip
    client.get_waiter("table_exists").wait(TableName=table)


def dynamodb_baseline(ledger: oncely.Ledger) -> Baseline:
    """The baseline on the ledger's own boto3 client (same configuration, same connections)."""
    store = ledger.store
    return DynamoBaseline(store._db, store.table + "-baseline")


def postgres_baseline(url: str) -> Baseline:
    import psycopg

    return Baseline(psycopg.connect(url, autocommit=True), "%s")


# --- one worker: both contenders, driven round by round ---------------------------------------


class Worker:
    """Runs batches of effects for either contender; keeps the keys it made for replays."""

    def __init__(self, ledger: oncely.Ledger, baseline: Baseline, tag: str) -> None:
        self.ledger = ledger
        self.baseline = baseline
        self.policy = oncely.parse_policy(POLICY_DOC)
        self.tag = tag
        self.made: dict[str, int] = {"oncely": 0, "baseline": 0}
        self.cursor: dict[str, int] = {"oncely": 0, "baseline": 0}

    def step(self, i: int) -> str:
        return f"{self.tag}-s{i}"

    def batch(self, who: str, measure: str, seconds: float) -> tuple[int, float, float]:
        """Run effects for ``seconds``; returns (effects, elapsed, CPU seconds of this process)."""
        fresh = measure == "fresh"
        if not fresh and self.made[who] == 0:
            raise RuntimeError("replay before any fresh effect")
        ledger, base, policy = self.ledger, self.baseline, self.policy
        n = 0
        c0 = time.process_time()
        t0 = time.perf_counter()
        deadline = t0 + seconds
        while True:
            if fresh:
                i = self.made[who]
                self.made[who] = i + 1
            else:
                i = self.cursor[who] % self.made[who]
                self.cursor[who] = i + 1
            step, args = self.step(i), args_of(i)
            if who == "oncely":
                r = ledger.run(refund, scope=SCOPE, run=RUN, step=step, tool=TOOL, args=args,
                               policy=policy)  # fmt: skip
                replayed = r.replayed
            else:
                _, replayed = base.effect(refund, SCOPE, RUN, step, TOOL, args, assume_new=fresh)
            if replayed == fresh:
                raise RuntimeError(f"{who} {measure}: replayed={replayed} for step {step}")
            n += 1
            now = time.perf_counter()
            if now >= deadline:
                return n, now - t0, time.process_time() - c0


Rates = dict[str, dict[str, Any]]


def _rounds(
    run_batch: Callable[[str, str], tuple[float, int, float]], measures: list[str], rounds: int
) -> Rates:
    """Alternate the contenders round by round (order flipped every round). Per measure and
    contender: the rate of each round, and the effects and CPU seconds summed over rounds."""
    out: Rates = {m: {w: {"rates": [], "n": 0, "cpu": 0.0} for w in ("oncely", "baseline")}
                  for m in measures}  # fmt: skip
    for m in measures:
        for r in range(rounds):
            order = ("oncely", "baseline") if r % 2 == 0 else ("baseline", "oncely")
            for who in order:
                rate, n, cpu = run_batch(who, m)
                acc = out[m][who]
                acc["rates"].append(rate)
                acc["n"] += n
                acc["cpu"] += cpu
    return out


# --- SQLite: one process -----------------------------------------------------------------------


def bench_sqlite(rounds: int, seconds: float, tmp: Path) -> Rates:
    ledger = oncely.Ledger.sqlite(tmp / "oncely.db")
    w = Worker(ledger, sqlite_baseline(str(tmp / "baseline.db")), "p0")

    def run_batch(who: str, measure: str) -> tuple[float, int, float]:
        n, dt, cpu = w.batch(who, measure, seconds)
        return n / dt, n, cpu

    w.batch("oncely", "fresh", 0.2)  # warm-up: instances, statements, pages
    w.batch("baseline", "fresh", 0.2)
    rates = _rounds(run_batch, ["fresh", "replay"], rounds)
    _check("sqlite", str(tmp), w.made)
    ledger.close()
    return rates


def wal_frames(path: Path) -> int:
    """Pages written to ``path``'s write-ahead log since its last truncation (SQLite appends one
    frame, a header and a page, for every page a commit changed)."""
    wal = Path(f"{path}-wal")
    if not wal.exists():
        return 0
    with sqlite3.connect(path) as c:
        (page,) = c.execute("PRAGMA page_size").fetchone()
    return max(0, (wal.stat().st_size - 32) // (page + 24))


def page_writes(tmp: Path, n: int = 50) -> dict[str, float]:
    """Pages each contender writes per fresh effect on SQLite: ``n`` fresh effects after a
    checkpoint that empties the log (few enough that no checkpoint runs among them), counted in
    the log. A count, not a time: the same on a quiet machine and a busy one."""
    paths = {"oncely": tmp / "pages-oncely.db", "baseline": tmp / "pages-baseline.db"}
    ledger = oncely.Ledger.sqlite(paths["oncely"])
    w = Worker(ledger, sqlite_baseline(str(paths["baseline"])), "pages")
    out = {}
    for who, path in paths.items():
        w.batch(who, "fresh", 0)  # one effect: the schema and the first pages
        with sqlite3.connect(path) as c:
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = wal_frames(path)
        for _ in range(n):
            w.batch(who, "fresh", 0)  # exactly one effect each
        out[who] = (wal_frames(path) - before) / n
    ledger.close()
    return out


# --- N processes (SQLite: one file, PostgreSQL: one server) -----------------------------------


def _proc_worker(backend: str, target: str, tag: str, conn: Any) -> None:
    try:
        if backend == "sqlite":
            ledger = oncely.Ledger.sqlite(Path(target) / "oncely.db")
            base = sqlite_baseline(str(Path(target) / "baseline.db"))
        elif backend == "dynamodb":
            ledger = oncely.Ledger.dynamodb(target)
            base = dynamodb_baseline(ledger)
        else:
            ledger = oncely.Ledger.postgres(target)
            base = postgres_baseline(target)
        w = Worker(ledger, base, tag)
        w.batch("oncely", "fresh", 0.2)
        w.batch("baseline", "fresh", 0.2)
        conn.send(("ready", None))
        while True:
            msg = conn.recv()
            if msg is None:
                conn.send(("made", w.made))
                break
            who, measure, seconds = msg
            conn.send(("done", w.batch(who, measure, seconds)))
        ledger.close()
    except BaseException as e:  # report, then die
        conn.send(("error", repr(e)))
        raise


def fresh_database(base: str, name: str) -> str:
    import psycopg

    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {name}")
        c.execute(f"CREATE DATABASE {name}")
    url = base.rsplit("/", 1)[0] + "/" + name
    oncely.Ledger.postgres(url).close()  # migrate once, before the workers race to
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(BASELINE_POSTGRES)
    return url


def fresh_table(endpoint: str, name: str) -> str:
    """A new ledger table and its baseline's on the DynamoDB server at ``endpoint``."""
    location = f"dynamodb://{name}?endpoint={endpoint}&region=us-east-1"
    with oncely.Ledger.dynamodb(location) as ledger:  # created at open, before the workers race
        dynamodb_table(ledger.store._db, f"{name}-baseline")
    return location


def fresh_directory(tmp: Path, name: str) -> str:
    d = tmp / name
    d.mkdir()
    oncely.Ledger.sqlite(d / "oncely.db").close()  # migrate once, before the workers race to
    sqlite_baseline(str(d / "baseline.db")).conn.close()
    return str(d)


def done_rows(backend: str, target: str) -> dict[str, int]:
    """The ``done`` rows on each side, counted by the database."""
    if backend == "sqlite":
        out = {}
        for file, table, who in (("oncely.db", "oncely_effects", "oncely"),
                                 ("baseline.db", "baseline_effects", "baseline")):  # fmt: skip
            with sqlite3.connect(Path(target) / file) as c:
                q = f"SELECT count(*) FROM {table} WHERE state = 'done'"
                (out[who],) = c.execute(q).fetchone()
        return out
    if backend == "dynamodb":
        with oncely.Ledger.dynamodb(target) as ledger:
            store = ledger.store
            tables = ((store.table, "oncely"), (store.table + "-baseline", "baseline"))
            return {who: _count_done(store._db, table) for table, who in tables}
    import psycopg

    with psycopg.connect(target, autocommit=True) as c:
        return {
            who: c.execute(f"SELECT count(*) FROM {table} WHERE state = 'done'").fetchone()[0]
            for table, who in (("oncely.effects", "oncely"), ("baseline_effects", "baseline"))
        }


def _count_done(client: Any, table: str) -> int:
    kwargs: dict[str, Any] = {
        "TableName": table, "Select": "COUNT", "ConsistentRead": True,
        "KeyConditionExpression": "#sc = :sc", "FilterExpression": "#s = :done",
        "ExpressionAttributeNames": {"#sc": "scope", "#s": "state"},
        "ExpressionAttributeValues": {":sc": {"S": SCOPE}, ":done": {"S": "done"}},
    }  # fmt: skip
    n = 0
    while True:
        page = client.query(**kwargs)
        n += page["Count"]
        if "LastEvaluatedKey" not in page:
            return n
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _start(backend: str, target: str, procs: int) -> tuple[list[Any], list[Any]]:
    """Start ``procs`` workers; their pipes and processes."""
    ctx = mp.get_context("spawn")
    pipes, workers = [], []
    for k in range(procs):
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_proc_worker, args=(backend, target, f"p{k}", child), daemon=True)
        p.start()
        pipes.append(parent)
        workers.append(p)
    return pipes, workers


def bench_procs(backend: str, target: str, procs: int, rounds: int, seconds: float) -> Rates:
    """``procs`` worker processes, each with its own ``Ledger`` and baseline connection on the
    same SQLite files (``target``: their directory) or PostgreSQL database (``target``: its URL),
    started together; a round's rate is the sum of theirs."""
    pipes, workers = _start(backend, target, procs)

    def recv(c: Any) -> Any:
        kind, value = c.recv()
        if kind == "error":
            raise RuntimeError(f"a {backend} worker failed: {value}")
        return value

    for c in pipes:
        recv(c)

    def run_batch(who: str, measure: str) -> tuple[float, int, float]:
        for c in pipes:
            c.send((who, measure, seconds))
        # Every worker runs for `seconds` from the same start; the rate is the sum of theirs.
        got = [recv(c) for c in pipes]
        return sum(n / dt for n, dt, _ in got), sum(g[0] for g in got), sum(g[2] for g in got)

    rates = _rounds(run_batch, ["fresh", "replay"], rounds)
    made = {"oncely": 0, "baseline": 0}
    for c in pipes:
        c.send(None)
        for who, n in recv(c).items():
            made[who] += n
    for p in workers:
        p.join(30)
    _check(backend, target, made)
    return rates


def _check(backend: str, target: str, made: dict[str, int]) -> None:
    """Each fresh effect left exactly one ``done`` row on its side."""
    for who, n in done_rows(backend, target).items():
        if n != made[who]:
            raise RuntimeError(f"{backend} {who}: {n} done rows for {made[who]} fresh effects")


# --- report ------------------------------------------------------------------------------------

GOALS = {"fresh": 0.8, "replay": 0.5}


def summarize(backend: str, workers: int, rates: Rates) -> list[dict[str, Any]]:
    rows = []
    for measure, acc in rates.items():
        by = {w: acc[w]["rates"] for w in acc}
        cpu = {w: acc[w]["cpu"] / acc[w]["n"] * 1e6 for w in acc}  # µs per effect
        o, b = statistics.median(by["oncely"]), statistics.median(by["baseline"])
        paired = statistics.median(x / y for x, y in zip(by["oncely"], by["baseline"], strict=True))
        rows.append({
            "host": "python", "backend": backend, "measure": measure, "workers": workers,
            "oncely": o, "baseline": b, "ratio": o / b, "goal": GOALS[measure],
            "paired_ratio": paired,
            "oncely_cpu_us": cpu["oncely"], "baseline_cpu_us": cpu["baseline"],
            "oncely_best": max(by["oncely"]), "baseline_best": max(by["baseline"]),
            "rounds": len(by["oncely"]), "stat": "median",
        })  # fmt: skip
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    print(f"{'backend':9} {'measure':7} {'workers':>7} {'oncely/s':>9} {'baseline/s':>10} "
          f"{'ratio':>6} {'goal':>6} {'paired':>7}  {'CPU µs/effect':>15}  "
          f"{'best /s':>16}")  # fmt: skip
    for r in rows:
        cpu = f"{r['oncely_cpu_us']:,.0f} / {r['baseline_cpu_us']:,.0f}"
        best = f"{r['oncely_best']:,.0f} / {r['baseline_best']:,.0f}"
        print(f"{r['backend']:9} {r['measure']:7} {r['workers']:>7} {r['oncely']:>9,.0f} "
              f"{r['baseline']:>10,.0f} {r['ratio']:>5.2f}x {'>=' + str(r['goal']):>6} "
              f"{r['paired_ratio']:>6.2f}x  {cpu:>15}  {best:>16}")  # fmt: skip
    print(
        "(oncely / baseline; ratio = median oncely rate / median baseline rate; paired = median"
        " of per-round ratios; CPU = this host's processes, not the database server's)"
    )


def profile(n: int, tmp: Path) -> None:
    """cProfile of n fresh effects, then of the n replays of the same intents (SQLite)."""
    import cProfile
    import pstats

    ledger = oncely.Ledger.sqlite(tmp / "profile.db")
    policy = oncely.parse_policy(POLICY_DOC)

    def go(start: int) -> None:
        for i in range(start, start + n):
            ledger.run(refund, scope=SCOPE, run=RUN, step=f"prof-{i}", tool=TOOL, args=args_of(i),
                       policy=policy)  # fmt: skip

    go(10 * n)  # warm-up
    for label in ("fresh", "replay"):
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        go(0)
        prof.disable()
        dt = time.perf_counter() - t0
        print(f"\ncProfile: {n} {label} oncely effects on SQLite "
              f"({n / dt:,.0f}/s under the profiler)")  # fmt: skip
        st = pstats.Stats(prof, stream=sys.stdout).strip_dirs()
        st.sort_stats("tottime").print_stats(12)
        st.sort_stats("cumulative").print_stats(20)
    ledger.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--postgres", metavar="URL", default=os.environ.get("ONCELY_TEST_POSTGRES_URL"),
                    help="a PostgreSQL server (default: $ONCELY_TEST_POSTGRES_URL; "
                         "none: SQLite only)")  # fmt: skip
    ap.add_argument("--dynamodb", metavar="ENDPOINT",
                    default=os.environ.get("ONCELY_TEST_DYNAMODB_URL"),
                    help="a DynamoDB-compatible server's endpoint (default: "
                         "$ONCELY_TEST_DYNAMODB_URL; none: skipped)")  # fmt: skip
    ap.add_argument("--no-sqlite", action="store_true")
    ap.add_argument("--procs", type=int, default=8,
                    help="worker processes of the many-worker rows (8)")  # fmt: skip
    ap.add_argument("--rounds", type=int, default=None, help="rounds per measure (15; --quick 7)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="seconds per contender per round (0.6; --quick 0.3)")  # fmt: skip
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="then profile N fresh SQLite effects and their replays")  # fmt: skip
    ap.add_argument("--dir", metavar="DIR", default=None,
                    help="where the SQLite files go (default: the system's temporary directory; "
                         "/dev/shm: a profile of the CPU, not of fsync)")  # fmt: skip
    a = ap.parse_args()
    rounds = a.rounds or (7 if a.quick else 15)
    seconds = a.seconds or (0.3 if a.quick else 0.6)

    print(f"python {platform.python_version()}, oncely {oncely.__version__} from "
          f"{Path(oncely.__file__).parent}; {rounds} rounds x {seconds} s per contender per "
          f"measure, median kept; {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="oncely-bench-ledger-", dir=a.dir) as d:
        tmp = Path(d)
        if not a.no_sqlite:
            rows += summarize("sqlite", 1, bench_sqlite(rounds, seconds, tmp))
            print_rows(rows)
            pages = page_writes(tmp)
            print(
                f"sqlite pages written per fresh effect (WAL frames): oncely "
                f"{pages['oncely']:.2f}, baseline {pages['baseline']:.2f} -> "
                f"{pages['oncely'] / pages['baseline']:.2f}x the baseline's"
            )
            fresh = next(r for r in rows if r["backend"] == "sqlite" and r["measure"] == "fresh")
            fresh["pages_per_fresh"] = pages
            many = summarize("sqlite", a.procs, bench_procs(
                "sqlite", fresh_directory(tmp, "many"), a.procs, rounds, seconds))  # fmt: skip
            print_rows(many)
            rows += many
        if a.postgres:
            for procs in (1, a.procs):
                url = fresh_database(a.postgres, "oncely_bench_py")
                rates = bench_procs("postgres", url, procs, rounds, seconds)
                pg = summarize("postgres", procs, rates)
                print_rows(pg)
                rows += pg
        else:
            print("postgres: skipped (no --postgres URL or $ONCELY_TEST_POSTGRES_URL)")
        if a.dynamodb:
            for procs in (1, a.procs):
                location = fresh_table(a.dynamodb, f"oncely-bench-{procs}-{os.getpid()}")
                dy = summarize(
                    "dynamodb", procs, bench_procs("dynamodb", location, procs, rounds, seconds)
                )
                print_rows(dy)
                rows += dy
        else:
            print("dynamodb: skipped (no --dynamodb endpoint or $ONCELY_TEST_DYNAMODB_URL)")
        if a.json:
            Path(a.json).write_text(json.dumps({"host": "python", "rows": rows}, indent=1))
        if a.profile:
            profile(a.profile, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
