"""The adapter examples of examples/python/: without oncely the provider pays twice, with the
adapter once (each exits non-zero otherwise)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from payments import counted


@pytest.mark.parametrize(
    "argv",
    [
        ["langgraph_agent.py"],
        ["openai_agents_agent.py"],
        ["http_refund.py", "--client", "httpx"],
        ["http_refund.py", "--client", "requests"],
    ],
)
def test_example(argv: list[str], repo: Path, tmp_path: Path) -> None:
    script = repo / "examples" / "python" / argv[0]
    p = subprocess.run(
        [sys.executable, str(script), *argv[1:], "--db", str(tmp_path / "ledger.db")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    paid = [int(n) for n in re.findall(r"the provider paid (\d+) time", p.stdout)]
    assert paid == [2, 1], p.stdout
    counted(f"{' '.join(argv)}: paid {paid[0]}x without oncely, {paid[1]}x with")
