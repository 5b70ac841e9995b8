"""examples/python/smolagents_agent.py: without oncely the provider pays twice, with the adapter
once (the example exits non-zero otherwise)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from payments import counted

REPO = Path(__file__).resolve().parents[5]


def test_the_smolagents_example_pays_twice_without_oncely_and_once_with(tmp_path: Path) -> None:
    script = REPO / "examples" / "python" / "smolagents_agent.py"
    assert script.is_file(), f"{REPO} is not the oncely repository"
    p = subprocess.run(
        [sys.executable, str(script), "--db", str(tmp_path / "ledger.db")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    paid = [int(n) for n in re.findall(r"the provider paid (\d+) time", p.stdout)]
    assert paid == [2, 1], p.stdout
    assert "the model sees: charge_id, amount (no key)" in p.stdout
    assert "step 1 (error): OncelyAnswer: oncely: the outcome of this call is unknown" in p.stdout
    assert "step 2 (result): {'refund_id': 're_1'" in p.stdout
    counted(f"smolagents_agent.py: paid {paid[0]}x without oncely, {paid[1]}x with")
