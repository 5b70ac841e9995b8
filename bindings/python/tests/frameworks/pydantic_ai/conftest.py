"""The Pydantic AI adapter's tests: the provider's execution counts, printed after the run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from payments import COUNTS
from stories import ledger, payments  # noqa: F401 (fixtures)


@pytest.fixture
def repo() -> Path:
    """The repository's root."""
    return Path(__file__).resolve().parents[5]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if COUNTS:
        terminalreporter.section("pydantic_ai adapter: what the provider executed")
        for line in COUNTS:
            terminalreporter.write_line(line)
