"""``bench_numbers.py`` runs against the shipped component, and two builds given to it must
agree on every document (the same component twice here): each row carries one measured figure
per component. The figures themselves are the bench's, not this test's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SHIPPED = HERE.parent / "oncely-core.wasm"


def test_bench_numbers_measures_every_document_for_every_component() -> None:
    out = subprocess.run(
        [
            *(sys.executable, "bench_numbers.py", "--rounds", "1", "--calls", "1"),
            *("--component", str(SHIPPED), "--component", str(SHIPPED)),
        ],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if " | " in line and "B) |" in line]
    assert len(rows) == 4, out.stdout
    for row in rows:
        cells = row.split(" | ")[1:]
        assert len(cells) == 2 and all(float(c.replace(",", "")) > 0 for c in cells), row
