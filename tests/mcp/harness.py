"""Processes, ports, polling and the effects file: what the scenario tests share."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SERVER = HERE / "payments_server.py"
AGENT = HERE / "agent.py"
EVERYTHING = (
    HERE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
)
PY = sys.executable

# Bounds, generous for a noisy 2-core machine; nothing below sleeps a fixed time where it can poll.
START_S = 30.0  # a process to start listening
EFFECT_S = 30.0  # an effect to show up in the effects file


def oncely_bin() -> Path:
    return Path(os.environ.get("ONCELY_BIN") or REPO / "target" / "release" / "oncely").resolve()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(pred: Callable[[], Any], timeout_s: float, what: str, poll_s: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")
        time.sleep(poll_s)


async def await_for(
    pred: Callable[[], Any], timeout_s: float, what: str, poll_s: float = 0.02
) -> Any:
    import anyio

    deadline = time.monotonic() + timeout_s
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")
        await anyio.sleep(poll_s)


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def effects(path: Path, kind: str | None = "charge") -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if kind is None or r["kind"] == kind]


def payments_cmd(
    charges: Path,
    late_ms: int = 0,
    late_times: int | None = None,
    http: int | None = None,
    crash_times: int = 0,
    fail_times: int = 0,
    approval_over: int | None = None,
) -> list[str]:
    cmd = [PY, str(SERVER), "--charges", str(charges)]
    if approval_over is not None:
        cmd += ["--approval-over", str(approval_over)]
    if crash_times:
        cmd += ["--crash-times", str(crash_times)]
    if fail_times:
        cmd += ["--fail-times", str(fail_times)]
    if late_ms:
        cmd += ["--late-ms", str(late_ms)]
    if late_times is not None:
        cmd += ["--late-times", str(late_times)]
    if http is not None:
        cmd += ["--http", str(http)]
    return cmd


class Proc:
    """A process this test started, in its own process group, its output in a log file."""

    def __init__(
        self,
        name: str,
        cmd: Sequence[str],
        log: Path,
        port: int | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name, self.cmd, self.log, self.port = name, list(cmd), log, port
        self.logf = open(log, "ab")  # noqa: SIM115 (kept open while the process runs)
        self.proc = subprocess.Popen(
            self.cmd,
            stdin=subprocess.DEVNULL,
            stdout=self.logf,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **(env or {})},
        )
        if port is not None:
            wait_for(
                lambda: listening(port) or self._dead(),
                START_S,
                f"{name} to listen on {port}",
                0.05,
            )
            if self.proc.poll() is not None:
                raise AssertionError(f"{name} exited with {self.proc.returncode}:\n{self.output()}")

    def _dead(self) -> bool:
        return self.proc.poll() is not None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def output(self) -> str:
        if not self.logf.closed:  # stop() closes it; a failed test's logs are read after
            self.logf.flush()
        return self.log.read_text(errors="replace")

    def sigkill(self) -> None:
        """SIGKILL this process alone (not its children): a crash."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """End the process and every process it started (its group)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.logf.close()


def gateway_cmd(db: str, *opts: str, upstream: Sequence[str] | str) -> list[str]:
    """`oncely mcp --db DB OPTS… (-- COMMAND… | --upstream-url URL)`."""
    cmd = [str(oncely_bin()), "mcp", "--db", db, *opts]
    if isinstance(upstream, str):
        return [*cmd, "--upstream-url", upstream]
    return [*cmd, "--", *upstream]


def oncely(*args: str, timeout_s: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(oncely_bin()), *args], capture_output=True, text=True, timeout=timeout_s
    )
