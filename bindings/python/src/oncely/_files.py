"""The files the package carries: the core component and the ledger's SQL migrations.

An installed package has them under ``oncely/_data/`` (the build copies them in:
``hatch_build.py``). The source tree has no ``_data/`` (an editable install, ``pip install -e
bindings/python``, runs it): there they are the repository's own, ``bindings/oncely-core.wasm``
and ``migrations/<dialect>/`` — the very files a build copies, so a change to either is seen at
once, never through a stale copy. Both are read as plain files: a wheel installs real files, and
wasmtime loads its native library from a file too, so a zip import could not run the package
anyway (and :mod:`importlib.resources` costs a first key 13 to 15 ms to import: ``python -X
importtime -c "import pathlib, importlib.resources"``, three runs).
"""

from __future__ import annotations

from pathlib import Path

from oncely.errors import MigrationError

_DATA = Path(__file__).resolve().parent / "_data"
"""Where an installed package keeps its files."""


def _source_repo() -> Path | None:
    """The repository when this package runs from its source tree
    (``<repo>/bindings/python/src/oncely``), else None."""
    here = Path(__file__).resolve().parent
    if here.parts[-4:] != ("bindings", "python", "src", "oncely"):
        return None
    repo = here.parents[3]
    if not (repo / "bindings" / "oncely-core.wasm").is_file():
        return None
    return repo


def component() -> bytes:
    """The core component's bytes."""
    repo = _source_repo()
    if repo is not None:
        return (repo / "bindings" / "oncely-core.wasm").read_bytes()
    return (_DATA / "oncely-core.wasm").read_bytes()


def migration_files(dialect: str) -> list[tuple[str, bytes]]:
    """(file name, bytes) of each SQL migration for ``dialect`` (``sqlite`` or ``postgres``), in
    name order; none is a ``MigrationError``."""
    repo = _source_repo()
    if repo is not None:
        found = [(p.name, p.read_bytes()) for p in (repo / "migrations" / dialect).glob("*.sql")]
    else:
        root = _DATA / "migrations" / dialect
        found = (
            [(f.name, f.read_bytes()) for f in root.iterdir() if f.name.endswith(".sql")]
            if root.is_dir()
            else []
        )
    if not found:
        raise MigrationError(f"no {dialect} migrations are packaged with oncely")
    return sorted(found)
