"""Helpers shared by the tests (subprocesses, the Rust CLI)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest

HERE = Path(__file__).resolve().parent


def python_worker(script: str, *args: str) -> list[str]:
    """A command line running ``script`` (a file in ``tests/workers/``) with this Python."""
    return [sys.executable, str(HERE / "workers" / script), *args]


def run(cmd: list[str], *, timeout: float = 120, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run a command, failing the test with its output if it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    if p.returncode != 0:
        pytest.fail(f"{cmd} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def missing(what: str, require: str, reason: str) -> NoReturn:
    """A server the tests need is missing: FAIL where it is required (``$require`` or ``CI``
    set), else skip loudly, with the reason."""
    if any(os.environ.get(n, "").strip().lower() not in ("", "0", "false", "no")
           for n in (require, "CI")):  # fmt: skip
        pytest.fail(f"{what} is required here: {reason}")
    pytest.skip(f"SKIPPED LOUDLY, {what} tests did not run: {reason}")


def server_url(what: str, env: str, require: str, probe: Callable[[str], object]) -> str:
    """The URL of the throwaway server in ``$env``, once ``probe(url)`` reached it; when it is
    unset or unreachable, :func:`missing`."""
    url = os.environ.get(env, "")
    if not url:
        missing(what, require, f"{env} is not set (run the tests under scripts/with-*)")
    try:
        probe(url)
    except Exception as e:  # noqa: BLE001 - reported as the reason
        missing(what, require, f"{what} at {url} is unreachable: {e}")
    return url


def start_server(what: str, require: str, script: Path, *args: str) -> str:
    """What a script that starts a throwaway server for this process prints (``tests/pg/start.sh``,
    ``tests/redis/start.sh`` …: the server stops when this process exits); when it fails,
    :func:`missing`."""
    p = subprocess.run([str(script), *args, str(os.getpid())],
                       capture_output=True, text=True, timeout=180, check=False)  # fmt: skip
    if p.returncode != 0:
        name = "/".join(script.parts[-3:])
        missing(what, require, f"{name} {' '.join(args)} failed: {p.stderr.strip()}")
    return p.stdout.strip()


def restart_postgres(repo: Path, cluster: Path, mode: str, down_seconds: int = 0) -> None:
    """Restart a cluster of the ``pg_own_cluster`` fixture with ``pg_ctl -m MODE`` (``fast`` or
    ``immediate``), down ``down_seconds``; returns once it accepts connections again."""
    subprocess.run(
        [str(repo / "tests" / "pg" / "restart.sh"), str(cluster), mode, str(down_seconds)],
        check=True,
        timeout=120,
    )


def effect_error_of(tag: str, v: Any) -> Any:
    """The WIT ``effect.effect-error`` a vector writes as ``{tag: value}`` (camelCase fields), as
    this package's generated mirrors (tests/vectors/provider.json and adapters.json share it)."""
    import oncely
    from oncely.types import (
        Busy,
        Conflict,
        Doubt,
        ErrConflict,
        ErrContention,
        ErrEscalated,
        ErrInDoubt,
        ErrInProgress,
        ErrLedger,
        ErrResultNotRecorded,
        ErrStorage,
        ErrToolFailed,
        Keyed,
        LedgerErrorKind,
    )

    if tag == "conflict":
        return ErrConflict(
            Conflict(v["key"], v["pointer"], v["storedFingerprint"], v["givenFingerprint"])
        )
    if tag == "in-progress":
        return ErrInProgress(Busy(v["key"], v["owner"], v["retryAfterMs"]))
    if tag == "in-doubt":
        return ErrInDoubt(Doubt(v["key"], v["reason"], v["retryAfterMs"]))
    if tag == "escalated":
        return ErrEscalated(Keyed(v["key"], v["reason"]))
    if tag == "result-not-recorded":
        return ErrResultNotRecorded(Keyed(v["key"], v["reason"]))
    if tag == "tool-failed":
        return ErrToolFailed(v)
    if tag == "storage":
        return ErrStorage(v)
    if tag == "contention":
        return ErrContention(v)
    assert tag == "ledger", tag
    return ErrLedger(oncely.LedgerError(LedgerErrorKind(v["kind"]), None, v["message"]))
