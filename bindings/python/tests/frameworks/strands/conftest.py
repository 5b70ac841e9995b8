"""The Strands adapter's tests: the provider's execution counts, printed after the run."""

from __future__ import annotations

from typing import Any

from payments import COUNTS
from stories import ledger, payments  # noqa: F401 (fixtures)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if COUNTS:
        terminalreporter.section("strands: what the provider executed")
        for line in COUNTS:
            terminalreporter.write_line(line)
