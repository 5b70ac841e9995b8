"""``bench_ledger.py`` (``scripts/bench``) measures every row of issue 26's table it can here:
SQLite with one worker and with worker processes on the same files (PostgreSQL and DynamoDB
likewise when a server is given: here none, whatever the environment names); each row has a rate
on both sides, and the bench itself checks that every fresh effect left one ``done`` row and
every replay was a replay. The rates are the bench's to report, not this test's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def test_bench_ledger_measures_one_and_many_workers(tmp_path: Path) -> None:
    out_json = tmp_path / "rows.json"
    out = subprocess.run(
        [
            *(sys.executable, "bench_ledger.py", "--rounds", "1", "--seconds", "0.05"),
            *("--procs", "2", "--postgres", "", "--dynamodb", "", "--json", str(out_json)),
        ],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    rows = json.loads(out_json.read_text())["rows"]
    got = sorted((r["backend"], r["workers"], r["measure"]) for r in rows)
    assert got == [
        ("sqlite", 1, "fresh"),
        ("sqlite", 1, "replay"),
        ("sqlite", 2, "fresh"),
        ("sqlite", 2, "replay"),
    ], out.stdout
    assert all(r["oncely"] > 0 and r["baseline"] > 0 for r in rows), out.stdout
