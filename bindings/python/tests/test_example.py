"""The example agent loop (examples/python/agent_loop.py): the naive loop charges on every
retry; the oncely-decorated tool charges once."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from helpers import run


def test_agent_loop_example(repo: Path, tmp_path: Path) -> None:
    script = repo / "examples" / "python" / "agent_loop.py"
    out = run([sys.executable, str(script), "--db", str(tmp_path / "ledger.db")]).stdout
    naive, guarded = out.split("the same loop, tool decorated with oncely:")
    charges = [int(n) for n in re.findall(r"charged (\d+) time", out)]
    assert len(charges) == 2
    assert charges[0] > 1, naive  # the naive loop double-charged
    assert charges[1] == 1, guarded  # oncely: once
    assert "InDoubtError" in guarded  # the timed-out call was reported as unknown…
    assert "call_2" in guarded  # …the model retried with a new tool-call id…
    assert "'charge_id': 'ch_1'" in guarded.split("call_2", 1)[1]  # …and got the first charge
