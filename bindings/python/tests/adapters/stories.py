"""What the adapters' story tests share: the ledger and the provider of one test, and the
kill-and-resume story run as two processes (``SCRIPT first WORKDIR``, killed inside the tool
after the provider paid; ``SCRIPT resume WORKDIR``, which resumes the run from the framework's
own persistence). The folders of tests/frameworks/ take the fixtures into their conftest.py."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from payments import Payments, register_lookup

import oncely


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[oncely.Ledger]:
    """A SQLite ledger of its own for the test."""
    with oncely.Ledger.sqlite(tmp_path / "ledger.db", owner="w1") as ledger:
        yield ledger


@pytest.fixture
def payments(ledger: oncely.Ledger) -> Payments:
    """A provider that pays every refund, its refunds looked up by key for the ledger."""
    p = Payments()
    register_lookup(ledger, p)
    return p


def killed_and_resumed(script: Path, work: Path, *flags: str, timeout: float = 180) -> str:
    """Run ``script first`` (it must die of SIGKILL after the provider paid once), then
    ``script resume`` (it must succeed); the resumed process's output."""
    first = subprocess.run(
        [sys.executable, str(script), "first", str(work), *flags],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip
    assert first.returncode == -signal.SIGKILL, first.stdout + first.stderr
    assert len(Payments(work / "refunds.jsonl").refunds) == 1  # paid before the kill
    resumed = subprocess.run(
        [sys.executable, str(script), "resume", str(work), *flags],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    return resumed.stdout
