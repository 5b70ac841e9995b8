"""Build hook: the package carries the core component and the ledger's SQL migrations.

Both are read from the repository, not from a Rust build, so the package builds and installs
with no Rust toolchain: the component from ``bindings/oncely-core.wasm`` (committed; the Rust
tests check it is byte for byte what the current sources build), the migrations from
``migrations/`` — the very files the Rust host applies, so both hosts record the same
checksums. ``pip install ./bindings/python``, ``pip install "git+URL#subdirectory=bindings/python"``
and ``python -m build`` all work: an sdist carries copies of both under ``src/oncely/_data/``,
which a build from that sdist then uses. The wheel is pure Python (``py3-none-any``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DATA = "src/oncely/_data"


def _from_repo() -> list[tuple[Path, str]] | None:
    """(source, path under ``_data/``) for each file, from the repository; None outside it."""
    wasm = REPO / "bindings" / "oncely-core.wasm"
    if not wasm.is_file():
        return None
    files = [(wasm, "oncely-core.wasm")]
    for dialect in ("sqlite", "postgres"):
        src = REPO / "migrations" / dialect
        sql = sorted(src.glob("*.sql"))
        if not sql:
            raise SystemExit(f"oncely: no migrations in {src}")
        files += [(f, f"migrations/{dialect}/{f.name}") for f in sql]
    return files


def _sources() -> list[tuple[Path, str]]:
    files = _from_repo()
    if files is not None:
        return files
    # Building from an sdist: it carries the copies made by `sdist` below.
    data = HERE / DATA
    files = sorted((p, p.relative_to(data).as_posix()) for p in data.rglob("*") if p.is_file())
    if not any(rel == "oncely-core.wasm" for _, rel in files):
        raise SystemExit(
            "oncely: the core component is missing: build from the repository "
            "(bindings/python, next to bindings/oncely-core.wasm) or from its sdist"
        )
    return files


def _copy(files: list[tuple[Path, str]], target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    for src, rel in files:
        dst = target / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)


class BuildWithCore(build_py):
    """``build_py`` that also copies the component and the migrations into the package."""

    def run(self) -> None:
        files = _sources()
        super().run()
        _copy(files, Path(self.build_lib) / "oncely" / "_data")


class SdistWithCore(sdist):
    """``sdist`` that carries the component and the migrations, for builds outside the repo."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        _copy(_sources(), Path(base_dir) / DATA)


setup(cmdclass={"build_py": BuildWithCore, "sdist": SdistWithCore})
