"""Build hook: the wheel carries the core component and the ledger's SQL migrations.

They are copied from the repository at build time (never committed here): the component from
``$ONCELY_CORE_WASM`` or ``target/wasm/oncely-core.wasm`` (built by ``cargo build --release -p
oncely``), the migrations from ``host/migrations/`` — the very files the Rust host applies,
so both hosts record the same checksums.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def _sources() -> list[tuple[Path, str]]:
    wasm = Path(os.environ.get("ONCELY_CORE_WASM") or REPO / "target" / "wasm" / "oncely-core.wasm")
    if not wasm.is_file():
        raise SystemExit(
            f"oncely: the core component {wasm} is missing; build it first with "
            "`cargo build --release -p oncely` (or set ONCELY_CORE_WASM)"
        )
    files = [(wasm, "_data/oncely-core.wasm")]
    for dialect in ("sqlite", "postgres"):
        src = REPO / "host" / "migrations" / dialect
        sql = sorted(src.glob("*.sql"))
        if not sql:
            raise SystemExit(f"oncely: no migrations in {src}")
        files += [(f, f"_data/migrations/{dialect}/{f.name}") for f in sql]
    return files


class BuildWithCore(build_py):
    """``build_py`` that also copies the component and the migrations into the package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "oncely"
        shutil.rmtree(target / "_data", ignore_errors=True)
        for src, rel in _sources():
            dst = target / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)


setup(cmdclass={"build_py": BuildWithCore})
