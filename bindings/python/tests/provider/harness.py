"""Server processes, ports, polling and the effects file, for the provider tests."""

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
PY = sys.executable

START_S = 60.0  # a process to start listening (a noisy 2-core machine, a cold component cache)
WAIT_S = 60.0  # anything else to show up


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for(pred: Callable[[], Any], timeout_s: float, what: str, poll_s: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")
        time.sleep(poll_s)


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def effects(path: Path, kind: str | None = None) -> list[dict[str, Any]]:
    """The effects a server performed (one fsynced JSON line each)."""
    if not path.exists():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if kind is None or r["kind"] == kind]


class Proc:
    """A process this test started, in its own process group, its output in a log file."""

    def __init__(
        self,
        name: str,
        cmd: Sequence[str],
        log: Path,
        port: int | None = None,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
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
            cwd=cwd,
        )
        if port is not None:
            wait_for(
                lambda: listening(port) or self.proc.poll() is not None,
                START_S,
                f"{name} to listen on {port}",
                0.05,
            )
            if self.proc.poll() is not None:
                raise AssertionError(f"{name} exited with {self.proc.returncode}:\n{self.output()}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        if not self.logf.closed:
            self.logf.flush()
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        """End the process and every process it started (its group)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.logf.close()


def uvicorn(
    app: str, tmp: Path, env: dict[str, str], name: str = "uvicorn", port: int | None = None
) -> Proc:
    """``python -m uvicorn MODULE:APP`` on 127.0.0.1 (this directory on its path)."""
    port = port or free_port()
    cmd = [PY, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--app-dir", str(HERE), "--log-level", "warning", "--no-access-log"]
    return Proc(name, cmd, tmp / f"{name}.log", port, env)
