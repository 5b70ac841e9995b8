"""``bench_crossing.py`` (scripts/bench) still runs against the shipped component, through both
crossings, and every row it reports is measured. The figures themselves are the bench's, not
this test's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def test_bench_crossing_runs_and_reports_every_row() -> None:
    out = subprocess.run(
        [sys.executable, "bench_crossing.py", "--rounds", "1", "--min-time", "0.001"],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    rows = {
        line.split("|")[1].strip(): line.split("|")[2].strip()
        for line in out.stdout.splitlines()
        if line.startswith("| ") and not line.startswith("| what")
    }
    for row in (
        "floor: two raw core calls",
        "canonicalize 94 B: core",
        "keys.key: component",
        "effect.run of a replay: core",
        "effect.run of a replay: component",
        "replay (Ledger.run, SQLite)",
        "pickle.dumps 64 KiB",
        "replay, its parts: the command",
        "the call into the core",
        "the row's narrow read",
        "the result made",
    ):
        assert float(rows[row].replace(",", "")) > 0, (row, out.stdout)
    assert "a replay spends" in out.stdout, out.stdout
    # A replay is one call into the core (wit/effect.wit: the read step's replay rule).
    assert "calls into the core (1 per replay," in out.stdout, out.stdout
    assert "the replay's parts, each alone, add up to" in out.stdout, out.stdout
