#!/usr/bin/env python3
"""oncely's chaos harness: SIGKILLs, races, server restarts and stalled holders, thrown at the
Rust, Python and JavaScript test workers on SQLite, PostgreSQL, Redis and a Redis Cluster, then
every execution checked against the ledger. Run it with ``scripts/chaos`` (``--help`` for the options).

The workers
-----------
``target/release/oncely-test-worker`` (Rust), ``bindings/python/tests/workers/exec_worker.py`` and
``bindings/js/test/helpers/worker.mjs`` take the same options and print the same lines. The
harness runs them in batch mode (``--steps-file``: one effect per line, one output line per
effect). Each effect's tool appends ``"<key> <owner>"`` to the phase's marker file and returns
``{"by": owner}``; ``--sleep-ms`` holds the call after the append, ``--crash-after-call`` exits
137 after it, ``--reconcile-from-marker`` registers the lookup reconciler (the key has a line in
the marker: happened, with ``{"by": the owner of its first line}``; else not happened), and
``--stall-after-claim-ms`` / ``--stall-before-call-ms`` stall a worker that holds a claim.

Backends
--------
``sqlite`` (a file), ``postgres`` (a cluster the harness starts itself), ``redis`` (one
redis-server the harness runs itself: an append-only file, ``appendfsync always`` unless
``--redis-appendfsync`` says otherwise) and ``redis-cluster`` (three masters with a replica each,
tests/redis/cluster.sh, the same ``appendfsync``) and ``dynamodb`` (moto's server mode,
tests/dynamodb/start.sh, one request at a time; the Python and JavaScript workers, the ledger read
through the Python package: tests/chaos/ledger_py.py). Which languages' workers run on a backend is
BACKEND_LANGS, in one place; a phase spreads its workers over those that ``--langs`` selects, and
a backend none of them runs on is skipped, loudly.

Phases, per backend
-------------------
kill     Workers of random languages (six at a time) walk the phase's intents — mostly ones no
         worker reached yet, some that others did — with a random ``--sleep-ms`` (so most kills
         land inside the call) and a random wait; each is SIGKILLed a random delay after its
         first output line; some run ``--crash-after-call`` instead (a death between the effect
         and its recording). A tenth of the intents use a tool with ``"reconcile": "manual"`` and
         no reconciler: what a kill leaves of them must be escalated. Then, once every lease has
         expired, ``oncely ledger sweep`` and one resume pass (every intent once more, split over
         the languages) settle what the kills left.
race     32 processes (languages in turn) walk the same intents (10,000; 200 with --quick; fewer
         on a server that serves one request at a time: BACKEND_CAPS), each in its own random
         order; nothing may fail, and every intent has exactly one fresh result.
restart  (PostgreSQL and the single Redis server) Waves of 8 processes (6 with --quick) walk a
         block of fresh intents, each in its own order, holding each call 20 ms, while the
         harness restarts the server every few seconds — PostgreSQL: ``pg_ctl restart -m fast``
         and ``-m immediate`` in turn (``pg_restart``); Redis: SHUTDOWN and SIGKILL in turn, then
         redis-server started again on its append-only file (``RedisServer.restart``) — until 8
         restarts (2) are done; then a resume pass.
failover (PostgreSQL only) A primary and a streaming replica of the harness's own
         (``ReplicatedCluster``), with synchronous replication and then asynchronous: waves of 8
         processes (6 with --quick), connected with a URL naming both servers
         (``target_session_attrs=read-write``), walk blocks of fresh intents while the harness
         SIGKILLs the primary (the postmaster and every backend), promotes the replica
         (``pg_ctl promote``) and makes a new replica in the dead one's place, until 30
         failovers (1) per mode are done; then a resume pass. Synchronous: checked like the
         other phases. Asynchronous: duplicates and lost results are counted, not failed (a
         commit the replica had not received is gone after the promotion).
stall    The stalled-holder probe. Worker A claims (lease 1 s, 2 s on DynamoDB:
         STALL_LEASE_MS_OF; maxCallMs 4 s: a lookup's "did not happen" is believed 5 s (6 s)
         after the claim at the earliest) and stalls 3 s; once A's
         claim is in the ledger, worker B (another language) runs the same intent. Three
         variants: ``claim`` stalls between the claim write and the call
         (``--stall-after-claim-ms``: the check of the lease right before the call stops A,
         which records its attempt as never executed and claims again), ``tool`` stalls inside
         the tool before it appends (``--stall-before-call-ms``; A lives, so its heartbeats keep
         the claim and B waits), ``sigstop`` stops A's whole process (SIGSTOP, while its tool
         holds the call 500 ms) and continues it 3 s later: no heartbeat, B finds the lease
         expired and its lookup finds nothing, which is not believed before the grace ends; A's
         call lands first. Every probe must end with exactly one execution (the variants of
         ``--assert-stalled-holder``, by default all: STALLED_HOLDER_ASSERT). A stall past the
         grace is the documented residual case (docs/reliability.md), pinned by the hosts' own
         stall tests, not here.

The rules checked after every phase
-----------------------------------
Every execution of a tool is exactly one marker line: the tool appends it (one ``write`` of one
line to a file opened with O_APPEND, fsynced) before it returns or sleeps, so an effect that
happened has its line even when the worker is killed right after. A tool here never reports a
definite failure, and the only reconciler says "not happened" only when the marker holds no line
for the key. So a new attempt of an intent — the only legitimate second call for its key — can
start only while the marker holds no line for the key, and its own line is then the first one:
with a correct ledger, **every key has at most one marker line**.

- **duplicate**: every marker line of a key after its first; a key with n lines counts n - 1
  duplicates and is one double-executed key. By the argument above a second line is one of two
  things, both an effect the world received twice: an attempt that executed twice (a worker that
  waited for, replayed or reconciled a claim and called the tool anyway), or an attempt that
  executed after it had been judged "not happened" and superseded — a holder that was still
  going to call the tool when its lease ran out (the stalled holder).
- **lost**: a worker printed a result (a line with ``value``: it told its caller "this is the
  effect's result, recorded"), and the ledger, at the end of the phase, does not hold that key as
  ``done`` with that very value.

Also checked, and failed when violated: every intent of the phase ends settled (``done``, or
``escalated`` for the manual tool; nothing ``pending``, ``in-doubt`` or ``failed``); a ``done``
entry's result names an owner that has a marker line for the key (no "happened" without an
execution: ``phantom``); the marker names no key outside the phase; no worker prints an error
the phase does not expect (``unexpected``), and none exits with a status other than 0 (or 137
after ``--crash-after-call``, or by the harness's SIGKILL).

Figures, per phase and backend: kills (SIGKILLs delivered to live workers;
``kills_after_effect``: of those, the ones whose worker's last marker line has no output line of
its own — killed after the effect happened, inside the call or during its recording), crashes
(``--crash-after-call`` exits), restarts, intents, executions (marker lines), duplicates, lost,
reconciled (results printed with ``reconciled: true``, plus the sweep's "happened"), escalated
(entries escalated at the end), errors by code, and wall time.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import glob
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "target/release/oncely"
RUST_WORKER = REPO / "target/release/oncely-test-worker"
PY_WORKER = REPO / "bindings/python/tests/workers/exec_worker.py"
JS_WORKER = REPO / "bindings/js/test/helpers/worker.mjs"
VENV = REPO / "target/chaos/py-venv"

LANGS = ("rust", "python", "js")
# Which workers run on which backend, in one place: a language joins a backend by being named on
# its line (its worker must then accept the backend's --db location; Python's client package for
# it is in PY_CLIENTS, JavaScript's comes with bindings/js's lock). Every phase of a backend
# spreads its workers over the languages named here that --langs selects.
BACKEND_LANGS: dict[str, tuple[str, ...]] = {
    "sqlite": LANGS,
    "postgres": LANGS,
    "redis": LANGS,  # one server, AOF with appendfsync always (RedisServer)
    "redis-cluster": LANGS,  # three masters with a replica each (tests/redis/cluster.sh)
    "dynamodb": ("python", "js"),  # moto's server mode, one request at a time (DynamoServer)
}
BACKENDS = tuple(BACKEND_LANGS)
# What target/chaos/py-venv needs, beyond wasmtime, for Python's worker to open a backend.
PY_CLIENTS: dict[str, str] = {
    "postgres": "psycopg[binary]>=3.1,<4",
    "redis": "redis>=5,<9",
    "redis-cluster": "redis>=5,<9",
    "dynamodb": "boto3>=1.34,<2",
}
# Figures of the run's configuration a backend caps (full run, --quick). moto serves one request
# at a time (some 150 a second here): the race's 32 processes each read every intent, and the
# kill phase's resume pass runs every intent the kills did not reach, all through its one lock.
# --quick covers each phase once, briefly: fewer kills, race processes and probes.
BACKEND_CAPS: dict[str, dict[str, tuple[int, int]]] = {
    "dynamodb": {"race_intents": (300, 50), "kill_intents": (3000, 200), "kills": (1000, 20),
                 "race_procs": (32, 8), "stall_probes": (12, 1)},
}

# The stalled-holder variants that must show zero double executions (and one execution each):
# all of them. The stall (3 s) is within the grace (lease 1 s + maxCallMs 4 s): a stall past it
# is the documented residual case, pinned by each host's own stall tests.
STALLED_HOLDER_ASSERT: tuple[str, ...] = ("claim", "tool", "sigstop")

ARGS_JSON = '{"cents":500}'


# The longest a call may be in flight (the policy's maxCallMs): the workers' calls hold at most
# 50 ms. A lookup's "did not happen" about a killed claim is believed once its lease's end plus
# this much has passed; the resume pass waits longer than that.
MAX_CALL_MS = 2000


def policy(reconcile: Any, lease_ms: int, max_call_ms: int | None = None) -> str:
    doc = {
        "class": "irreversible-external",
        "key": {},
        "reconcile": reconcile,
        "leaseMs": lease_ms,
        "maxCallMs": MAX_CALL_MS if max_call_ms is None else max_call_ms,
        "reconcileAfterMs": 0,
    }
    return json.dumps(doc, separators=(",", ":"))


# The tool with a lookup reconciler (the workers' --reconcile-from-marker) and the one that only
# a human can reconcile.
LOOKUP = ("refund", {"lookup": "find_refund"})
MANUAL = ("wire", "manual")


@dataclass
class Config:
    kills: int  # SIGKILLs per backend (kill phase)
    kill_intents: int  # intents of the kill phase (a tenth of them manual)
    kill_slots: int  # workers alive at once
    kill_steps: int  # intents each worker walks (at most)
    kill_delay_ms: int  # a kill lands up to this long after the worker's first output line
    race_procs: int
    race_intents: int
    restart_procs: int
    restart_intents: int  # per wave
    restarts: int  # per PostgreSQL run, fast and immediate in turn
    restart_gap_s: float
    stall_probes: int  # per variant
    stall_parallel: int
    failovers: int = 30  # per replication mode (sync, async)


FULL = Config(
    kills=1000,
    kill_intents=15_000,
    kill_slots=6,
    kill_steps=40,
    kill_delay_ms=400,
    race_procs=32,
    race_intents=10_000,
    restart_procs=8,
    restart_intents=1000,
    restarts=8,
    restart_gap_s=3.0,
    stall_probes=12,
    stall_parallel=3,
)
QUICK = Config(
    kills=60,
    kill_intents=800,
    kill_slots=4,
    kill_steps=30,
    kill_delay_ms=400,
    race_procs=32,
    race_intents=200,
    restart_procs=6,
    restart_intents=300,
    restarts=2,
    restart_gap_s=1.5,
    stall_probes=3,
    stall_parallel=3,
    failovers=1,
)

KILL_LEASE_MS = 5000
RESTART_LEASE_MS = 3000
STALL_LEASE_MS = 1000
# A backend whose requests take hundreds of ms under load (moto, one at a time) needs a longer
# lease than the time from claim to call, or the core refuses the call ("its lease ran out"):
# still shorter than the 3 s stall, with the grace (lease + maxCallMs) still past it.
STALL_LEASE_MS_OF: dict[str, int] = {"dynamodb": 2000}
STALL_MAX_CALL_MS = 4000  # the grace ends 5 s after the claim
STALL_MS = 3000


def log(msg: str) -> None:
    print(f"[chaos {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Failure(Exception):
    pass


# ---- setup ---------------------------------------------------------------------------------------


def sh(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=True, text=True, **kw)


def ensure_binaries(build: bool) -> None:
    """The Rust CLI and test worker, as scripts/test builds them (no-ops when up to date)."""
    if build and shutil.which("cargo"):
        for pkg in (["-p", "oncely-cli"],
                    ["-p", "oncely-test-support", "--bin", "oncely-test-worker"]):
            sh(["cargo", "build", "--quiet", "--locked", "--release", *pkg], cwd=REPO)
    for p, how in ((CLI, "cargo build --release -p oncely-cli"),
                   (RUST_WORKER,
                    "cargo build --release -p oncely-test-support --bin oncely-test-worker")):
        if not p.is_file():
            raise Failure(f"{p.relative_to(REPO)} is missing: run {how}")


def python_sources_hash() -> str:
    h = hashlib.sha256()
    files = sorted(
        [*(REPO / "bindings/python/src").rglob("*.py"), REPO / "bindings/python/hatch_build.py",
         REPO / "bindings/python/pyproject.toml", REPO / "bindings/oncely-core.wasm",
         *(REPO / "migrations").rglob("*.sql"), *(REPO / "migrations").rglob("*.lua")]
    )
    for f in files:
        h.update(str(f.relative_to(REPO)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def ensure_python(backends: list[str]) -> Path:
    """target/chaos/py-venv with the package installed as `pip install bindings/python` would
    (the build writes nothing into the work tree), wasmtime and the client of every backend
    Python runs on (PY_CLIENTS); made on first use, the package reinstalled when its sources
    change."""
    py = VENV / "bin/python"
    pip = [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    want_pkgs = sorted({"wasmtime==50.*", "hatchling==1.33.0",
                        *(PY_CLIENTS[b] for b in backends if b in PY_CLIENTS and "python" in BACKEND_LANGS[b])})
    have = VENV / ".oncely-requirements"
    if not py.is_file():
        log("python: making target/chaos/py-venv")
        sh([sys.executable, "-m", "venv", str(VENV)])
    if not have.is_file() or not set(want_pkgs) <= set(have.read_text().splitlines()):
        sh([*pip, *want_pkgs])
        old = have.read_text().splitlines() if have.is_file() else []
        have.write_text("".join(f"{r}\n" for r in sorted({*old, *want_pkgs})))
    stamp = VENV / ".oncely-sources"
    want = python_sources_hash()
    if not stamp.is_file() or stamp.read_text() != want:
        log("python: installing bindings/python into target/chaos/py-venv")
        sh([*pip, "--no-deps", "--no-build-isolation", "--force-reinstall", str(REPO / "bindings/python")])
        stamp.write_text(want)
    return py


def ensure_js() -> None:
    """bindings/js/node_modules, as bindings/js/test.sh makes it (npm ci while the lock changed)."""
    js = REPO / "bindings/js"
    lock = hashlib.sha256((js / "package-lock.json").read_bytes()).hexdigest()
    stamp = js / "node_modules/.oncely-lock"
    if not stamp.is_file() or stamp.read_text().strip() != lock:
        log("js: npm ci")
        sh(["npm", "ci", "--no-audit", "--no-fund"], cwd=js)
        stamp.write_text(lock + "\n")


# ---- PostgreSQL: a cluster of the harness's own --------------------------------------------------


def as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []


class Cluster:
    """A throwaway cluster, as tests/pg/start.sh starts one, whose data directory the harness
    keeps so that it can restart it. Stopped (and removed) by stop(), or by a watchdog when the
    harness dies."""

    def __init__(self) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in p.split("/")[-2].split(".") if x.isdigit()])
        if not bins or not os.access(f"{bins[-1]}/initdb", os.X_OK):
            raise Failure("PostgreSQL server binaries not found (scripts/setup --all installs them)")
        self.bin = bins[-1]
        self.dir = tempfile.mkdtemp(prefix="oncely-chaos-pg.")
        os.chmod(self.dir, 0o755)
        if os.getuid() == 0:
            shutil.chown(self.dir, "postgres")
        self.data = f"{self.dir}/data"
        self.log = f"{self.dir}/server.log"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        run = as_postgres()
        sh([*run, f"{self.bin}/initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
           capture_output=True)
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections=200"
        sh([*run, f"{self.bin}/pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o", opts, "start"],
           capture_output=True)
        stop = " ".join([*run, f"{self.bin}/pg_ctl", "-D", self.data, "-m", "immediate", "stop"])
        subprocess.Popen(
            ["bash", "-c", f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf {self.dir}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def pg_ctl(self, *args: str) -> None:
        sh([*as_postgres(), f"{self.bin}/pg_ctl", "-D", self.data, "-l", self.log, *args], capture_output=True)

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.pg_ctl("-m", "fast", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ReplicatedCluster:
    """A primary and a streaming replica (``pg_basebackup -R``) from Debian's binaries, on two
    free 127.0.0.1 ports, for the failover phase. ``sync``: the primary has
    ``synchronous_standby_names = '*'`` and ``synchronous_commit = on`` (a commit returns once
    the replica has flushed its WAL); else asynchronous streaming (the default). ``url`` names
    both servers with ``target_session_attrs=read-write``: a worker connects to whichever is the
    primary. ``failover()`` SIGKILLs the primary's postmaster and every process of it, promotes
    the replica (``pg_ctl promote``), and then makes a new replica of the new primary in the
    dead one's place (a fresh base backup on its port), so the pair is whole again for the next
    failover. Stopped (and removed) by stop(), or by a watchdog when the harness dies."""

    def __init__(self, sync: bool) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in p.split("/")[-2].split(".") if x.isdigit()])
        if not bins or not os.access(f"{bins[-1]}/initdb", os.X_OK):
            raise Failure("PostgreSQL server binaries not found (scripts/setup --all installs them)")
        self.bin = bins[-1]
        self.sync = sync
        self.dir = tempfile.mkdtemp(prefix="oncely-chaos-pgha.")
        os.chmod(self.dir, 0o755)
        if os.getuid() == 0:
            shutil.chown(self.dir, "postgres")
        self.ports = [free_port(), free_port()]
        self.generation = 0
        self.primary = 0  # index into ports (and node data directories)
        data = self.data(0)
        sh([*as_postgres(), f"{self.bin}/initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"],
           capture_output=True)
        conf = ["listen_addresses = '127.0.0.1'", "max_connections = 200", "wal_level = replica", "max_wal_senders = 10", "hot_standby = on"]
        if sync:
            conf += ["synchronous_standby_names = '*'", "synchronous_commit = on"]
        sh([*as_postgres(), "tee", "-a", f"{data}/postgresql.conf"], input="\n".join(conf) + "\n", capture_output=True)
        self.start(0)
        self.make_replica(1)
        stop = "; ".join(" ".join([*as_postgres(), f"{self.bin}/pg_ctl", "-D", f"{self.dir}/node{i}", "-m", "immediate", "stop"])
                         + " >/dev/null 2>&1" for i in range(2))
        subprocess.Popen(
            ["bash", "-c", f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; {stop}; rm -rf {self.dir}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.ports)
        self.url = f"postgres://postgres@{hosts}/postgres?target_session_attrs=read-write"

    def data(self, i: int) -> str:
        return f"{self.dir}/node{i}"

    def node_url(self, i: int) -> str:
        return f"postgres://postgres@127.0.0.1:{self.ports[i]}/postgres"

    def pg_ctl(self, i: int, *args: str) -> None:
        sh([*as_postgres(), f"{self.bin}/pg_ctl", "-D", self.data(i), "-l", f"{self.dir}/server{i}.log", *args],
           capture_output=True)

    def start(self, i: int) -> None:
        # A socket directory of each start's own: a SIGKILLed postmaster that nobody reaped yet
        # (a zombie) still "holds" its socket's lock file, and the new server would refuse it.
        sockets = tempfile.mkdtemp(prefix=f"sock{i}.", dir=self.dir)
        os.chmod(sockets, 0o755)
        if os.getuid() == 0:
            shutil.chown(sockets, "postgres")
        try:
            self.pg_ctl(i, "-w", "-t", "60", "-o", f"-p {self.ports[i]} -k {sockets}", "start")
        except subprocess.CalledProcessError as e:
            log_tail = Path(f"{self.dir}/server{i}.log").read_text(errors="replace")[-1500:]
            raise Failure(f"PostgreSQL node {i} did not start: {e.stderr}{log_tail}") from e

    def psql(self, i: int, sql: str) -> str:
        return sh([f"{self.bin}/psql", "-X", "-A", "-t", "-h", "127.0.0.1", "-p", str(self.ports[i]), "-U", "postgres",
                   "-d", "postgres", "-c", sql], capture_output=True).stdout.strip()

    def make_replica(self, i: int) -> float:
        """A fresh base backup of the primary into node i, started as its streaming replica;
        returns once the primary sees it streaming (and, with ``sync``, as its synchronous
        standby). The seconds it took."""
        t = time.monotonic()
        shutil.rmtree(self.data(i), ignore_errors=True)
        self.generation += 1
        name = f"replica{self.generation}"
        sh([*as_postgres(), f"{self.bin}/pg_basebackup", "-h", "127.0.0.1", "-p", str(self.ports[self.primary]), "-U", "postgres",
            "-D", self.data(i), "-R", "-X", "stream", "-c", "fast", "--no-sync"], capture_output=True)
        conninfo = f"host=127.0.0.1 port={self.ports[self.primary]} user=postgres application_name={name}"
        sh([*as_postgres(), "tee", "-a", f"{self.data(i)}/postgresql.auto.conf"],
           input=f"primary_conninfo = '{conninfo}'\n", capture_output=True)
        self.start(i)
        want = "sync" if self.sync else "async"
        deadline = time.monotonic() + 60
        while self.psql(self.primary, f"SELECT sync_state FROM pg_stat_replication WHERE application_name = '{name}' "
                        "AND state = 'streaming'") != want:
            if time.monotonic() > deadline:
                raise Failure(f"the replica {name} did not stream as {want}: see {self.dir}/server{i}.log")
            time.sleep(0.05)
        return time.monotonic() - t

    def failover(self) -> dict[str, float]:
        """SIGKILL the primary (its postmaster and every backend: a machine that dies), promote
        the replica, then rebuild a replica in the dead one's place. Seconds: until the new
        primary accepts writes, and until the new replica streams."""
        t = time.monotonic()
        old = self.primary
        pid = int(Path(f"{self.data(old)}/postmaster.pid").read_text().split()[0])
        for p in [*children(pid), pid]:  # (the children first: once it dies, init adopts them)
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
        new = 1 - old
        self.pg_ctl(new, "-w", "-t", "60", "promote")
        self.primary = new
        promoted = time.monotonic() - t
        rebuilt = self.make_replica(old)
        return {"promoted_s": round(promoted, 2), "replica_s": round(rebuilt, 2)}

    def stop(self) -> None:
        for i in range(2):
            with contextlib.suppress(subprocess.CalledProcessError):
                self.pg_ctl(i, "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


def children(pid: int) -> list[int]:
    """The processes whose parent is pid (a postmaster's backends)."""
    got = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                got.append(int(stat.split("/")[2]))
    return got


def pg_restart(cluster: Cluster, mode: str) -> float:
    """Restart the cluster (``pg_ctl restart -m MODE``, MODE fast or immediate) and wait until it
    accepts connections again; the seconds it took. Kept apart so that a shared helper
    (tests/pg/) can replace it."""
    t = time.monotonic()
    cluster.pg_ctl("-m", mode, "-w", "-t", "60", "restart")
    return time.monotonic() - t


# ---- Redis: a server and a cluster of the harness's own ----------------------------------------------


def redis_bin(name: str) -> str:
    for b in (f"redis-{name}", f"valkey-{name}"):
        if found := shutil.which(b):
            return found
    raise Failure(f"redis-{name} not found (scripts/setup --all installs it)")


def redis_cli(port: int, *args: str, check: bool = True) -> str:
    return subprocess.run([redis_bin("cli"), "-h", "127.0.0.1", "-p", str(port), *args], check=check,
                          capture_output=True, text=True).stdout


class RedisServer:
    """One redis-server, as tests/redis/start.sh starts one (no snapshot, an append-only file)
    with ``appendfsync`` as asked (``always`` by default: what docs/reliability.md says a claim
    needs to survive anything), run by the harness itself so that it can restart it on the same
    directory: ``shutdown`` (SHUTDOWN: the AOF flushed, a clean stop) or ``kill`` (SIGKILL: a
    crash of the server process; the AOF is read back at start). Stopped by stop(), or by a
    watchdog when the harness dies."""

    restart_modes = ("shutdown", "kill")

    def __init__(self, appendfsync: str) -> None:
        self.dir = tempfile.mkdtemp(prefix="oncely-chaos-redis.")
        self.port = free_port()
        self.args = [redis_bin("server"), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                     "--save", "", "--appendonly", "yes", "--appendfsync", appendfsync,
                     "--pidfile", f"{self.dir}/redis.pid", "--logfile", f"{self.dir}/server.log"]
        self.proc = self.start()
        subprocess.Popen(
            ["bash", "-c", (f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; "
                            f"kill -9 $(cat {self.dir}/redis.pid) 2>/dev/null; sleep 0.2; rm -rf {self.dir}")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        self.url = f"redis://127.0.0.1:{self.port}"

    def start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while redis_cli(self.port, "ping", check=False).strip() != "PONG":
            if proc.poll() is not None or time.monotonic() > deadline:
                raise Failure(f"redis-server did not start: {Path(self.dir, 'server.log').read_text()[-2000:]}")
            time.sleep(0.02)
        return proc

    def restart(self, mode: str) -> float:
        """Stop the server (``shutdown`` or ``kill``) and start it again on the same directory;
        the seconds until it answered again."""
        t = time.monotonic()
        if mode == "kill":
            self.proc.kill()
        else:
            redis_cli(self.port, "shutdown", check=False)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = self.start()
        return time.monotonic() - t

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class RedisCluster:
    """Three masters with a replica each (tests/redis/cluster.sh, every node with the same
    ``appendfsync``), stopped by stop() or when the harness exits."""

    def __init__(self, appendfsync: str) -> None:
        self.url = sh(["tests/redis/cluster.sh", "--appendfsync", appendfsync, str(os.getpid())],
                      cwd=REPO, capture_output=True).stdout.strip()

    def stop(self) -> None:
        first = int(self.url.rsplit(":", 1)[1])
        ports = [int(line.split()[1].split("@")[0].rsplit(":", 1)[1])
                 for line in redis_cli(first, "cluster", "nodes", check=False).splitlines() if line.strip()]
        for port in ports:
            redis_cli(port, "shutdown", "nosave", check=False)


# ---- DynamoDB: moto's server mode, as the store's tests run it ------------------------------------


class DynamoServer:
    """moto's DynamoDB in server mode (tests/dynamodb/start.sh: one request at a time, in
    memory), one table for the run's phases (each phase its own scope). The server stops when its
    watcher exits: at stop(), or when the harness dies. No restart phase: moto keeps nothing on
    disk, so a restart is a new, empty server, not a crash a ledger must survive."""

    def __init__(self) -> None:
        for k, v in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                     ("AWS_REGION", "us-east-1"), ("AWS_DEFAULT_REGION", "us-east-1")):
            os.environ.setdefault(k, v)  # scripts/with-dynamodb's test values; moto takes any
        self.watcher = subprocess.Popen(
            ["bash", "-c", f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done"],
            stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            self.endpoint = sh(["tests/dynamodb/start.sh", str(self.watcher.pid)], cwd=REPO,
                               capture_output=True).stdout.strip()
        except subprocess.CalledProcessError as e:
            self.stop()
            raise Failure(f"the DynamoDB server did not start: {e.stderr.strip()}") from e
        self.url = f"dynamodb://oncely-chaos?region=us-east-1&endpoint={self.endpoint}"

    def stop(self) -> None:
        self.watcher.kill()
        self.watcher.wait()


_PY_LEDGERS: dict[str, subprocess.Popen[str]] = {}


def py_ledger(op: str, db: str, scope: str) -> Any:
    """``op`` (list or sweep) through tests/chaos/ledger_py.py, one process per run: the ledgers
    the Rust CLI cannot open."""
    proc = _PY_LEDGERS.get("p")
    if proc is None or proc.poll() is not None:
        proc = _PY_LEDGERS["p"] = subprocess.Popen(
            [str(VENV / "bin/python"), str(REPO / "tests/chaos/ledger_py.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"op": op, "db": db, "scope": scope}) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise Failure(f"tests/chaos/ledger_py.py exited with {proc.wait()} on {op} {scope}")
    return json.loads(line)


# ---- workers ---------------------------------------------------------------------------------------


@dataclass
class Env:
    work: Path
    python: Path | None
    cache: Path
    rng: random.Random
    spawned: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def command(self, lang: str) -> list[str]:
        if lang == "rust":
            return [str(RUST_WORKER)]
        if lang == "python":
            assert self.python is not None
            return [str(self.python), str(PY_WORKER)]
        return ["node", str(JS_WORKER)]


@dataclass
class Worker:
    lang: str
    owner: str
    proc: subprocess.Popen[bytes]
    out: Path
    err: Path
    started: float
    crash: bool = False
    kill_at: float | None = None
    killed: bool = False

    def lines(self) -> list[dict[str, Any]]:
        """The complete JSON lines it printed (a line cut by a kill is ignored)."""
        got = []
        for line in self.out.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True):
            if line.endswith("\n"):
                with contextlib.suppress(json.JSONDecodeError):
                    got.append(json.loads(line))
        return got

    def stderr_tail(self) -> str:
        return self.err.read_text(errors="replace")[-2000:]


@dataclass
class Phase:
    """One phase on one backend: its intents, marker, workers and figures."""

    backend: str
    name: str
    db: str
    scope: str
    env: Env
    started: float = field(default_factory=time.monotonic)
    workers: list[Worker] = field(default_factory=list)
    steps: dict[str, list[str]] = field(default_factory=dict)  # tool -> steps
    figures: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    expected_errors: set[str] = field(default_factory=set)
    allow_duplicates: bool = False
    n: int = 0
    double_keys: list[str] = field(default_factory=list)  # set by verify()
    fresh: collections.Counter[str] = field(default_factory=collections.Counter)  # fresh results per key

    @property
    def marker(self) -> Path:
        return self.env.work / f"{self.backend}-{self.name}.marker"

    def spawn(self, lang: str, tool: tuple[str, Any], lease_ms: int, steps: list[str], *extra: str,
              max_call_ms: int | None = None) -> Worker:
        self.n += 1
        owner = f"{lang}-{self.name}-{self.n}"
        base = self.env.work / "out" / f"{self.backend}-{owner}"
        steps_file = base.with_suffix(".steps")
        steps_file.write_text("".join(s + "\n" for s in steps))
        out, err = base.with_suffix(".out"), base.with_suffix(".err")
        cmd = [
            *self.env.command(lang), "--db", self.db, "--scope", self.scope, "--run", "chaos", "--step", steps[0],
            "--tool", tool[0], "--args", ARGS_JSON, "--policy", policy(tool[1], lease_ms, max_call_ms), "--owner", owner,
            "--marker", str(self.marker), "--steps-file", str(steps_file), *extra,
        ]
        with open(out, "wb") as o, open(err, "wb") as e:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                                    env={**os.environ, "ONCELY_CACHE_DIR": str(self.env.cache)}, cwd=REPO)
        w = Worker(lang, owner, proc, out, err, time.monotonic(), crash="--crash-after-call" in extra)
        self.workers.append(w)
        self.env.spawned.append(proc)
        return w

    def reap(self, w: Worker) -> None:
        rc = w.proc.wait()
        if rc == 0 or (w.killed and rc == -signal.SIGKILL) or (w.crash and rc == 137):
            return
        self.failures.append(f"{w.owner} exited with {rc}: {w.stderr_tail()}")

    def run_all(self, lang_steps: list[tuple[str, list[str]]], tool: tuple[str, Any], lease_ms: int, *extra: str) -> None:
        ws = [self.spawn(lang, tool, lease_ms, steps, *extra) for lang, steps in lang_steps if steps]
        for w in ws:
            self.reap(w)

    def resume(self, langs: list[str], lease_ms: int) -> None:
        """Every intent once more, split over the languages, with the lookup reconciler and a
        wait longer than any lease: what a resumed agent does."""
        for tool in (LOOKUP, MANUAL):
            steps = self.steps.get(tool[0], [])
            chunks = [steps[i :: len(langs)] for i in range(len(langs))]
            reconciler = ["--reconcile-from-marker"] if tool is LOOKUP else []
            self.run_all(list(zip(langs, chunks)), tool, lease_ms, *reconciler, "--wait-ms", str(lease_ms + 10_000))


# ---- the ledger and the checks -----------------------------------------------------------------------


def derive_keys(scope: str, tool: str, steps: list[str]) -> dict[str, str]:
    """step -> key, by the Rust CLI (`oncely key --lines`)."""
    if not steps:
        return {}
    args = json.loads(ARGS_JSON)
    lines = "".join(json.dumps({"scope": scope, "run": "chaos", "step": s, "tool": tool, "args": args}) + "\n" for s in steps)
    out = sh([str(CLI), "key", "--lines"], input=lines, capture_output=True).stdout.split()
    if len(out) != len(steps):
        raise Failure(f"oncely key --lines gave {len(out)} keys for {len(steps)} intents")
    return dict(zip(steps, out))


def ledger_rows(db: str, scope: str) -> dict[str, dict[str, Any]]:
    if db.startswith("dynamodb://"):
        return {r["key"]: r for r in py_ledger("list", db, scope)}
    out = sh([str(CLI), "ledger", "list", "--db", db, "--scope", scope, "--limit", "4000000000", "--json"],
             capture_output=True).stdout
    return {r["key"]: r for r in json.loads(out)}


def sweep(db: str, scope: str) -> dict[str, Any]:
    if db.startswith("dynamodb://"):
        got: dict[str, Any] = py_ledger("sweep", db, scope)
        return got
    out = sh([str(CLI), "ledger", "sweep", "--db", db, "--scope", scope, "--json"], capture_output=True).stdout
    return json.loads(out)


def marker_counts(ph: Phase) -> dict[str, int]:
    """How many times each key was executed: its lines in the phase's marker file."""
    counts: dict[str, int] = collections.Counter()
    if ph.marker.is_file():
        for line in ph.marker.read_text().splitlines():
            parts = line.split(" ")
            if len(parts) == 2:
                counts[parts[0]] += 1
    return counts


def verify(ph: Phase) -> None:
    """The checks of the module docstring, and the phase's figures."""
    keys: dict[str, str] = {}
    for tool, steps in ph.steps.items():
        keys.update({k: tool for k in derive_keys(ph.scope, tool, steps).values()})
    rows = ledger_rows(ph.db, ph.scope)
    marker: dict[str, list[str]] = collections.defaultdict(list)
    torn = 0
    if ph.marker.is_file():
        for line in ph.marker.read_text().splitlines():
            parts = line.split(" ")
            if len(parts) != 2:
                torn += 1
                continue
            marker[parts[0]].append(parts[1])
    executions = sum(len(v) for v in marker.values())
    duplicates = sum(len(v) - 1 for v in marker.values())
    double_keys = sorted(k for k, v in marker.items() if len(v) > 1)
    strangers = sorted(k for k in marker if k not in keys)

    outputs = [(w, line) for w in ph.workers for line in w.lines()]
    lost, reconciled, fresh = [], 0, collections.Counter[str]()
    errors: collections.Counter[str] = collections.Counter()
    unexpected = []
    for w, o in outputs:
        if "error" in o:
            errors[o["error"]] += 1
            if o["error"] not in ph.expected_errors:
                unexpected.append(f"{w.owner} {o['step']}: {o['error']}: {o.get('message')}")
            continue
        reconciled += bool(o["reconciled"])
        fresh[o["key"]] += not o["replayed"]
        row = rows.get(o["key"])
        if row is None or row["state"] != "done" or row["result"] != o["value"]:
            state = None if row is None else (row["state"], row["result"])
            lost.append(f"{w.owner} printed {o['key']} = {o['value']}; the ledger holds {state}")

    states = collections.Counter(rows[k]["state"] if k in rows else "absent" for k in keys)
    unsettled = [k for k in keys if k not in rows or not (
        rows[k]["state"] == "done" or (rows[k]["state"] == "escalated" and keys[k] == MANUAL[0]))]
    def by(row: dict[str, Any]) -> Any:
        result = row["result"]  # `ledger list --json`: the result as a JSON value
        return result.get("by") if isinstance(result, dict) else None

    phantom = [k for k in keys if k in rows and rows[k]["state"] == "done" and by(rows[k]) not in marker.get(k, [])]

    f = ph.figures
    f.update({
        "intents": len(keys),
        "executions": executions,
        "duplicates": duplicates,
        "double_executed_keys": len(double_keys),
        "lost": len(lost),
        "reconciled": reconciled + f.get("sweep", {}).get("happened", 0),
        "escalated": states.get("escalated", 0),
        "states": dict(states),
        "results_printed": sum(1 for _, o in outputs if "error" not in o),
        "errors": dict(errors),
    })
    problems = {
        "lost": lost, "unsettled": [f"{k} {rows.get(k, {}).get('state', 'absent')}" for k in unsettled],
        "phantom": phantom, "marker keys outside the phase": strangers,
        "unexpected errors": unexpected,
    }
    if not ph.allow_duplicates:
        problems["duplicates"] = [f"{k}: {marker[k]}" for k in double_keys]
    if torn:
        problems["torn marker lines"] = [str(torn)]
    for what, items in problems.items():
        if items:
            ph.failures.append(f"{len(items)} {what}: " + "; ".join(items[:5]))
    ph.double_keys = double_keys
    ph.fresh = fresh


def finish(ph: Phase) -> dict[str, Any]:
    ph.figures["time_s"] = round(time.monotonic() - ph.started, 1)
    ph.figures["failures"] = ph.failures
    state = "FAILED" if ph.failures else "ok"
    log(f"{ph.backend} {ph.name}: {state} {json.dumps({k: v for k, v in ph.figures.items() if k != 'failures'})}")
    for fl in ph.failures:
        log(f"  FAIL {fl}")
    return ph.figures


# ---- phases ----------------------------------------------------------------------------------------------


def phase_kill(env: Env, backend: str, db: str, cfg: Config, langs: list[str]) -> dict[str, Any]:
    ph = Phase(backend, "kill", db, f"kill-{backend}", env)
    ph.expected_errors = {"in-progress", "escalated", "in-doubt"}  # in-doubt: a killed claim before its grace ends
    rng = env.rng
    n_manual = max(1, cfg.kill_intents // 10)
    ph.steps = {LOOKUP[0]: [f"k{i}" for i in range(cfg.kill_intents - n_manual)],
                MANUAL[0]: [f"m{i}" for i in range(n_manual)]}
    # Each worker gets intents no worker has reached yet (so that most kills land on fresh
    # effects: a claim, a call, a recording) and a few that others reached (replays, and claims
    # that killed workers left: waits, reconciliations, escalations). The intents a worker did
    # not reach go back to the pool when it dies.
    unvisited = {tool: rng.sample(steps, len(steps)) for tool, steps in ph.steps.items()}
    visited: dict[str, list[str]] = {tool: [] for tool in ph.steps}
    reached_set: dict[str, set[str]] = {tool: set() for tool in ph.steps}
    fresh_of: dict[str, list[str]] = {}
    given: dict[str, tuple[str, list[str]]] = {}
    active: list[Worker] = []
    kills = crashes = completed = spawned = in_call = 0
    by_lang: collections.Counter[str] = collections.Counter()
    last_kill = time.monotonic()
    while kills < cfg.kills or active:
        while kills + len(active) < cfg.kills and len(active) < cfg.kill_slots:
            tool = MANUAL if rng.random() < 0.1 else LOOKUP
            pool = unvisited[tool[0]]
            fresh = [pool.pop() for _ in range(min(cfg.kill_steps, len(pool)))]
            # (once every intent was reached, replays and what kills left)
            some = max(cfg.kill_steps // 8, cfg.kill_steps - len(fresh))
            old = rng.sample(visited[tool[0]], min(some, len(visited[tool[0]])))
            if not fresh and not old:
                old = rng.sample(ph.steps[tool[0]], min(cfg.kill_steps, len(ph.steps[tool[0]])))
            steps = fresh + old
            rng.shuffle(steps)
            extra = ["--sleep-ms", str(rng.choice([0, 5, 20, 50])),
                     "--wait-ms", str(rng.choice([0, 0, KILL_LEASE_MS + 1000]))]
            if tool is LOOKUP:
                extra.append("--reconcile-from-marker")
            if rng.random() < 0.08:
                extra.append("--crash-after-call")
            w = ph.spawn(rng.choice(langs), tool, KILL_LEASE_MS, steps, *extra)
            given[w.owner] = (tool[0], steps)
            fresh_of[w.owner] = fresh
            active.append(w)
            spawned += 1
        time.sleep(0.005)
        now = time.monotonic()
        for w in list(active):
            if w.proc.poll() is not None:
                active.remove(w)
                if w.killed and w.proc.returncode == -signal.SIGKILL:
                    kills += 1
                    by_lang[w.lang] += 1
                    last_kill = now
                    in_call += killed_in_call(ph, w)
                elif w.crash and w.proc.returncode == 137:
                    crashes += 1
                elif w.proc.returncode == 0:
                    completed += 1
                ph.reap(w)
                tool_name, steps = given.pop(w.owner)
                printed = {o["step"] for o in w.lines()}
                reached = [s for s in steps if s in printed]
                # The intent it was in the middle of, if any, was reached too.
                reached += [s for s in steps if s not in printed][:1]
                seen = reached_set[tool_name]
                visited[tool_name] += [s for s in reached if s not in seen]
                seen.update(reached)
                unvisited[tool_name] += [s for s in fresh_of.pop(w.owner) if s not in seen]
                rng.shuffle(unvisited[tool_name])
            elif w.kill_at is None and (w.out.stat().st_size > 0 or now - w.started > 30):
                w.kill_at = now + rng.uniform(0, cfg.kill_delay_ms / 1000)
            elif w.kill_at is not None and now >= w.kill_at and not w.killed:
                w.proc.send_signal(signal.SIGKILL)
                w.killed = True
    ph.figures.update({"workers": spawned, "kills": kills, "kills_by_lang": dict(by_lang),
                       "kills_after_effect": in_call, "crashes": crashes,
                       "completed_unkilled": completed,
                       "intents_reached": sum(len(v) for v in visited.values())})
    # Every lease the kills left has expired: the sweep marks them in doubt (and escalates what
    # only a human can settle), then the resume pass reconciles the rest.
    time.sleep(max(0.0, last_kill + KILL_LEASE_MS / 1000 + 0.5 - time.monotonic()))
    swept = sweep(db, ph.scope)
    ph.figures["sweep"] = {**{k: v for k, v in swept.items() if k not in ("escalated", "errors")},
                           "escalated": len(swept["escalated"]), "errors": len(swept["errors"])}
    ph.resume(langs, KILL_LEASE_MS)
    verify(ph)
    return finish(ph)


def killed_in_call(ph: Phase, w: Worker) -> bool:
    """Whether w's last marker line (its last execution) has no output line of its own: killed
    after the effect happened and before its result was printed."""
    if not ph.marker.is_file():
        return False
    mine = [line.split(" ")[0] for line in ph.marker.read_text().splitlines() if line.endswith(" " + w.owner)]
    if not mine:
        return False
    printed = {o.get("key") for o in w.lines()}
    return mine[-1] not in printed


def phase_race(env: Env, backend: str, db: str, cfg: Config, langs: list[str]) -> dict[str, Any]:
    ph = Phase(backend, "race", db, f"race-{backend}", env)
    intents = cfg.race_intents
    steps = [f"r{i}" for i in range(intents)]
    ph.steps = {LOOKUP[0]: steps}
    orders = []
    for i in range(cfg.race_procs):
        order = steps[:]
        env.rng.shuffle(order)
        orders.append((langs[i % len(langs)], order))
    t = time.monotonic()
    ph.run_all(orders, LOOKUP, 60_000, "--reconcile-from-marker", "--wait-ms", "600000")
    elapsed = time.monotonic() - t
    ph.figures.update({"processes": cfg.race_procs, "effects_run": cfg.race_procs * intents,
                       "effects_per_s": round(cfg.race_procs * intents / elapsed)})
    verify(ph)
    fresh = ph.fresh
    wrong = [k for k in fresh if fresh[k] != 1]
    if wrong or len(fresh) != intents:
        ph.failures.append(f"{len(wrong)} keys without exactly one fresh result (of {len(fresh)})")
    if ph.figures["executions"] != intents:
        ph.failures.append(f"{ph.figures['executions']} executions for {intents} intents")
    return finish(ph)


def under_waves(env: Env, ph: Phase, cfg: Config, langs: list[str], count: int,
                disrupt: Callable[[int], dict[str, Any]], sleep_ms: int, pause_after: bool) -> tuple[list[dict[str, Any]], int]:
    """Waves of ``cfg.restart_procs`` workers walk blocks of ``cfg.restart_intents`` fresh intents,
    each in its own order, while ``disrupt(n)`` is done ``count`` times — only while every worker
    of the wave is past opening the ledger and some are still walking; waves follow each other
    until the disruptions are done. ``pause_after``: the next one waits a gap after this one (else
    it waits for a wave to be under way again). Returns what each disruption said, and the waves."""
    rng = env.rng
    done: list[dict[str, Any]] = []
    active: list[Worker] = []
    waves = 0
    next_at: float | None = None
    while True:
        if not active:
            if len(done) >= count:
                break
            block = [f"w{waves}-{i}" for i in range(cfg.restart_intents)]
            ph.steps[LOOKUP[0]] += block
            for i in range(cfg.restart_procs):
                order = rng.sample(block, len(block))
                active.append(ph.spawn(langs[(waves + i) % len(langs)], LOOKUP, RESTART_LEASE_MS, order,
                                       "--reconcile-from-marker", "--wait-ms", str(RESTART_LEASE_MS + 2000),
                                       "--sleep-ms", str(sleep_ms)))
            waves += 1
            next_at = None
        time.sleep(0.02)
        for w in [w for w in active if w.proc.poll() is not None]:
            active.remove(w)
            ph.reap(w)
        if not active or not all(w.out.stat().st_size > 0 for w in active):
            continue
        now = time.monotonic()
        if next_at is None:
            next_at = now + rng.uniform(0.2, 1.0) * cfg.restart_gap_s
        elif now >= next_at and len(done) < count:
            done.append(disrupt(len(done)))
            next_at = time.monotonic() + rng.uniform(0.5, 1.5) * cfg.restart_gap_s if pause_after else None
    return done, waves


def phase_restart(env: Env, backend: str, server: Cluster | RedisServer, cfg: Config,
                  langs: list[str]) -> dict[str, Any]:
    ph = Phase(backend, "restart", server.url, f"restart-{backend}", env)
    ph.expected_errors = {"storage", "in-doubt", "in-progress", "ledger"}
    ph.steps = {LOOKUP[0]: []}
    # Waves of workers (under_waves); PostgreSQL: pg_ctl restart -m fast and -m immediate in
    # turn; Redis: SHUTDOWN and SIGKILL.
    def restart(n: int) -> dict[str, Any]:
        modes = RedisServer.restart_modes if isinstance(server, RedisServer) else ("fast", "immediate")
        mode = modes[n % len(modes)]
        took = server.restart(mode) if isinstance(server, RedisServer) else pg_restart(server, mode)
        return {"mode": mode, "seconds": round(took, 2)}

    restarts, waves = under_waves(env, ph, cfg, langs, cfg.restarts, restart, sleep_ms=20, pause_after=True)
    ph.figures.update({"workers": len(ph.workers), "waves": waves, "restarts": len(restarts), "restart_log": restarts})
    time.sleep(RESTART_LEASE_MS / 1000 + 0.5)
    ph.resume(langs, RESTART_LEASE_MS)
    verify(ph)
    return finish(ph)


def phase_failover(env: Env, sync: bool, cfg: Config, langs: list[str]) -> dict[str, Any]:
    """The primary SIGKILLed and its replica promoted under load (``ReplicatedCluster``), with
    synchronous or asynchronous replication. Waves of workers, as in ``restart``, connected with
    the two-host URL (``target_session_attrs=read-write``), walk blocks of fresh intents; while
    every worker of a wave is past opening the ledger, the harness fails over, until
    ``cfg.failovers`` are done; then a resume pass on the last primary. Synchronous replication
    must show no duplicate and nothing lost; asynchronous replication may lose what was
    committed on the old primary and not yet streamed (a claim, or a recorded result): those are
    counted, not failed."""
    mode = "sync" if sync else "async"
    cluster = ReplicatedCluster(sync)
    log(f"postgres failover ({mode}): primary 127.0.0.1:{cluster.ports[0]}, replica 127.0.0.1:{cluster.ports[1]}")
    try:
        ph = Phase("postgres", f"failover-{mode}", cluster.url, f"failover-{mode}", env)
        ph.expected_errors = {"storage", "in-doubt", "in-progress", "ledger"}
        ph.allow_duplicates = not sync
        ph.steps = {LOOKUP[0]: []}
        def failover(n: int) -> dict[str, Any]:
            took = cluster.failover()
            log(f"postgres failover ({mode}) {n + 1}/{cfg.failovers}: {took}")
            return took

        failovers, waves = under_waves(env, ph, cfg, langs, cfg.failovers, failover, sleep_ms=5, pause_after=False)
        ph.figures.update({"workers": len(ph.workers), "waves": waves, "failovers": len(failovers),
                           "failover_log": failovers, "replication": mode})
        time.sleep(RESTART_LEASE_MS / 1000 + 0.5)
        ph.resume(langs, RESTART_LEASE_MS)
        ph.db = cluster.node_url(cluster.primary)  # the checks read the last primary itself
        verify(ph)
        if not sync:  # what asynchronous replication loses is the figure, not a failure
            ph.failures = [f for f in ph.failures if not f.split(" ", 2)[1].startswith("lost")]
        return finish(ph)
    finally:
        cluster.stop()


def phase_stall(env: Env, backend: str, db: str, cfg: Config, langs: list[str],
                assert_variants: tuple[str, ...]) -> dict[str, Any]:
    """Worker A claims (lease 1 s, maxCallMs 4 s: the grace ends 5 s after the claim) and stalls
    3 s: ``claim`` between its claim and its call (``--stall-after-claim-ms``: the pre-call check
    catches it), ``tool`` inside its tool before the provider sees the call (``--stall-before-call-ms``;
    the process lives, so its heartbeats keep the claim), ``sigstop`` the whole process stopped
    with SIGSTOP once its claim is in the ledger (while its tool holds the call 500 ms before
    appending) and continued 3 s later — a paused VM: no heartbeat either. Worker B (another
    language) runs the same intent once A's claim is in the ledger. Each probe must end with
    exactly one execution."""
    ph = Phase(backend, "stall", db, f"stall-{backend}", env)
    lease = STALL_LEASE_MS_OF.get(backend, STALL_LEASE_MS)
    ph.expected_errors = {"ledger", "in-progress", "in-doubt"}
    ph.allow_duplicates = True  # counted per variant below; failed only for assert_variants
    variants: dict[str, tuple[str, ...]] = {
        "claim": ("--stall-after-claim-ms", str(STALL_MS)),
        "tool": ("--stall-before-call-ms", str(STALL_MS)),
        "sigstop": ("--stall-before-call-ms", "500"),
    }
    probes: list[tuple[str, str, int]] = [(v, f"{v}{i}", i) for v in variants for i in range(cfg.stall_probes)]
    ph.steps = {LOOKUP[0]: [p[1] for p in probes]}
    keys = derive_keys(ph.scope, LOOKUP[0], ph.steps[LOOKUP[0]])
    roles: dict[str, dict[str, Worker | None]] = {}
    for b in range(0, len(probes), cfg.stall_parallel):
        batch = probes[b : b + cfg.stall_parallel]
        variant_of = {step: v for v, step, _ in batch}
        holders = {}
        for variant, step, i in batch:
            a_lang = langs[i % len(langs)]
            holders[step] = ph.spawn(a_lang, LOOKUP, lease, [step], "--reconcile-from-marker",
                                     "--wait-ms", "0", *variants[variant], max_call_ms=STALL_MAX_CALL_MS)
        seconds: dict[str, Worker] = {}
        stopped: dict[str, float] = {}
        waiting = dict(holders)
        deadline = time.monotonic() + 60
        while (waiting or stopped) and time.monotonic() < deadline:
            rows = ledger_rows(db, ph.scope)
            for step, a in list(waiting.items()):
                if keys[step] in rows or a.proc.poll() is not None:
                    del waiting[step]
                    if variant_of[step] == "sigstop" and a.proc.poll() is None:
                        os.kill(a.proc.pid, signal.SIGSTOP)
                        stopped[step] = time.monotonic()
                    i = next(p[2] for p in batch if p[1] == step)
                    b_lang = langs[(i + 1) % len(langs)]
                    seconds[step] = ph.spawn(b_lang, LOOKUP, lease, [step], "--reconcile-from-marker",
                                             "--wait-ms", "8000", max_call_ms=STALL_MAX_CALL_MS)
            for step, at in list(stopped.items()):
                if time.monotonic() - at >= STALL_MS / 1000:
                    os.kill(holders[step].proc.pid, signal.SIGCONT)
                    del stopped[step]
            time.sleep(0.05)
        for step in stopped:  # the deadline passed: never leave a process stopped
            os.kill(holders[step].proc.pid, signal.SIGCONT)
        for step, a in holders.items():
            ph.reap(a)
            if step in seconds:
                ph.reap(seconds[step])
            roles[step] = {"holder": a, "second": seconds.get(step)}
    ph.resume(langs, lease)
    verify(ph)
    double = set(ph.double_keys)
    executed = marker_counts(ph)
    per: dict[str, Any] = {}
    for v in variants:
        mine = [p[1] for p in probes if p[0] == v]
        doubles = sum(keys[s] in double for s in mine)
        once = sum(executed.get(keys[s], 0) == 1 for s in mine)
        second_executed = sum(
            1 for s in mine if roles[s]["second"] is not None
            and any("error" not in o and not o["replayed"] for o in roles[s]["second"].lines()))
        per[v] = {"intents": len(mine), "double_executions": doubles, "executed_once": once,
                  "second_worker_executed": second_executed}
        line = f"stalled-holder ({v}): {len(mine)} intents, {doubles} double executions, {once} executed exactly once"
        log(f"{backend} {line}")
        if v in assert_variants and (doubles or once != len(mine)):
            ph.failures.append(line)
    ph.figures["variants"] = per
    return finish(ph)


# ---- the run ---------------------------------------------------------------------------------------------


def start_server(backend: str, appendfsync: str) -> Cluster | RedisServer | RedisCluster | DynamoServer | None:
    """The server a backend's phases run against (none for SQLite: a file of the work directory)."""
    if backend == "postgres":
        return Cluster()
    if backend == "redis":
        return RedisServer(appendfsync)
    if backend == "redis-cluster":
        return RedisCluster(appendfsync)
    if backend == "dynamodb":
        return DynamoServer()
    return None


def warm_up(env: Env, langs: list[str]) -> dict[str, float]:
    """One effect per language on a scratch ledger: each worker runs, and the compiled-component
    cache is filled before processes start by the dozen. Seconds per language."""
    took = {}
    for lang in langs:
        ph = Phase("sqlite", f"warm-{lang}", str(env.work / "warm.db"), "warm", env)
        t = time.monotonic()
        for _ in range(2):
            ph.run_all([(lang, ["w"])], LOOKUP, 60_000)
        took[lang] = round((time.monotonic() - t) / 2, 2)
        if ph.failures:
            raise Failure(f"the {lang} worker does not run: {ph.failures[0]}")
    return took


def table(result: dict[str, Any]) -> str:
    cols = ["backend", "phase", "workers", "kills", "restarts", "intents", "executions", "duplicates", "lost",
            "reconciled", "escalated", "errors", "time_s", "ok"]
    rows = [cols]
    for backend, phases in result["backends"].items():
        for name, f in phases.items():
            workers = f.get("workers", f.get("processes", ""))
            kills = f"{f['kills']} (+{f['crashes']} crash)" if "kills" in f else ""
            rows.append([backend, name, str(workers), kills, str(f.get("restarts", "")), str(f["intents"]),
                         str(f["executions"]), str(f["duplicates"]), str(f["lost"]), str(f["reconciled"]),
                         str(f["escalated"]), str(sum(f["errors"].values())), str(f["time_s"]),
                         "FAIL" if f["failures"] else "ok"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    return "\n".join("  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
                     for r in rows)


def main() -> int:
    p = argparse.ArgumentParser(prog="scripts/chaos", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="the reduced run scripts/test does (3-4 minutes on 2 cores)")
    p.add_argument("--backends", default=",".join(BACKENDS), help=f"comma-separated: {','.join(BACKENDS)}")
    p.add_argument("--langs", default=",".join(LANGS), help="comma-separated: rust,python,js")
    p.add_argument("--phases", default="kill,race,restart,stall,failover",
                   help="comma-separated: kill,race,restart,stall,failover")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock; printed)")
    p.add_argument("--out", help="write the figures as JSON to this file")
    p.add_argument("--keep", action="store_true", help="keep the work directory (markers, outputs, SQLite files)")
    p.add_argument("--no-build", action="store_true", help="do not run cargo build for the Rust binaries")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=N",
                   help="override one figure of the run's configuration (e.g. race_intents=2000)")
    p.add_argument("--redis-appendfsync", default="always", choices=("always", "everysec", "no"),
                   help="the appendfsync of the Redis servers the harness starts (default: %(default)s)")
    p.add_argument("--assert-stalled-holder", default=",".join(STALLED_HOLDER_ASSERT),
                   help="stalled-holder variants that must show no double execution: claim,tool,sigstop (default: %(default)r)")
    a = p.parse_args()
    backends = [b for b in a.backends.split(",") if b]
    langs = [x for x in a.langs.split(",") if x]
    phases = [x for x in a.phases.split(",") if x]
    asserted = tuple(x for x in a.assert_stalled_holder.split(",") if x)
    for name, got, allowed in (("backend", backends, BACKENDS), ("language", langs, LANGS),
                               ("phase", phases, ("kill", "race", "restart", "stall", "failover")),
                               ("stalled-holder variant", list(asserted), ("claim", "tool", "sigstop"))):
        bad = [x for x in got if x not in allowed]
        if bad:
            p.error(f"unknown {name}: {', '.join(bad)}")
    seed = a.seed if a.seed is not None else int(time.time()) % 1_000_000
    cfg = dataclasses.replace(QUICK if a.quick else FULL)
    for item in a.set:
        name, _, value = item.partition("=")
        if name not in cfg.__dataclass_fields__:
            p.error(f"--set: no figure {name!r} (one of {', '.join(cfg.__dataclass_fields__)})")
        setattr(cfg, name, type(getattr(cfg, name))(value))
    t0 = time.monotonic()
    command = "scripts/chaos " + " ".join(sys.argv[1:])
    log(f"{command.strip()}  (seed {seed}; {'quick' if a.quick else 'full'} run)")

    ensure_binaries(not a.no_build)
    # (DynamoDB's ledger is read through the Python package: tests/chaos/ledger_py.py)
    python = ensure_python(backends) if "python" in langs or "dynamodb" in backends else None
    if "js" in langs:
        ensure_js()
    work = Path(tempfile.mkdtemp(prefix="oncely-chaos."))
    (work / "out").mkdir()
    env = Env(work, python, work / "cache", random.Random(seed))
    result: dict[str, Any] = {
        "command": command.strip(), "seed": seed, "mode": "quick" if a.quick else "full", "langs": langs,
        "cores": os.cpu_count(), "config": cfg.__dict__, "backends": {}, "langs_by_backend": {},
        "redis_appendfsync": a.redis_appendfsync, "skipped": [],
    }
    failed = False
    try:
        result["startup_s"] = warm_up(env, langs)
        log(f"workers run; one single effect, per language (s): {result['startup_s']}")
        for backend in backends:
            blangs = [x for x in langs if x in BACKEND_LANGS[backend]]
            if not blangs:
                log(f"{backend}: SKIPPED: no worker of {','.join(langs)} runs on it (BACKEND_LANGS)")
                result["skipped"].append(backend)
                continue
            result["langs_by_backend"][backend] = blangs
            caps = {k: min(getattr(cfg, k), v[1 if a.quick else 0]) for k, v in BACKEND_CAPS.get(backend, {}).items()}
            bcfg = dataclasses.replace(cfg, **caps)
            if caps:
                log(f"{backend}: {caps} (BACKEND_CAPS)")
                result.setdefault("caps", {})[backend] = caps
            t = time.monotonic()
            server = start_server(backend, a.redis_appendfsync)
            if server:
                log(f"{backend}: a server of the harness's own at {server.url} "
                    f"({round(time.monotonic() - t, 1)} s; workers: {','.join(blangs)})")
            try:
                db = server.url if server else str(work / f"{backend}.db")
                got: dict[str, Any] = {}
                if "kill" in phases:
                    got["kill"] = phase_kill(env, backend, db, bcfg, blangs)
                if "race" in phases:
                    got["race"] = phase_race(env, backend, db, bcfg, blangs)
                if "restart" in phases and isinstance(server, (Cluster, RedisServer)):
                    got["restart"] = phase_restart(env, backend, server, bcfg, blangs)
                if "stall" in phases:
                    got["stall"] = phase_stall(env, backend, db, bcfg, blangs, asserted)
                if "failover" in phases and isinstance(server, Cluster):
                    for sync in (True, False):
                        got[f"failover-{'sync' if sync else 'async'}"] = phase_failover(env, sync, bcfg, blangs)
                result["backends"][backend] = got
            finally:
                if server:
                    server.stop()
        failed = any(f["failures"] for ph in result["backends"].values() for f in ph.values())
    except Failure as e:
        log(f"FAIL {e}")
        failed = True
        result["error"] = str(e)
    finally:
        for proc in [*env.spawned, *_PY_LEDGERS.values()]:  # none is left running, whatever happened
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        result["wall_s"] = round(time.monotonic() - t0, 1)
        if a.out:
            Path(a.out).write_text(json.dumps(result, indent=2) + "\n")
        if a.keep or failed:
            log(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if result["backends"]:
        print()
        print(table(result))
        for backend, phs in result["backends"].items():
            kills = sum(f.get("kills", 0) for f in phs.values())
            st = phs.get("stall", {}).get("variants", {})
            stalled = "; ".join(f"stalled-holder ({v}): {s['intents']} intents, {s['double_executions']} double executions"
                                for v, s in st.items())
            print(f"{backend}: {kills} SIGKILLs; {stalled}")
    if result["skipped"]:
        print(f"SKIPPED (no selected worker runs on them): {', '.join(result['skipped'])}")
    print(f"\nchaos: {'FAILED' if failed else 'passed'} in {result['wall_s']} s (seed {seed})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
