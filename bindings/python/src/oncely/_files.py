"""The files the package carries: the core component, the ledger's SQL migrations and the Redis
store's Lua scripts.

An installed package has them under ``oncely/_data/`` (the build copies them in:
``hatch_build.py``). The source tree has no ``_data/`` (an editable install, ``pip install -e
bindings/python``, runs it): there they are the repository's own, ``bindings/oncely-core.wasm`` and
``migrations/<dialect>/`` (``migrations/redis/`` for the scripts) — the very files a build copies,
so a change to any is seen at once, never through a stale copy. All are read as plain files: a
wheel installs real files, and wasmtime loads its native library from a file too, so a zip import
could not run the package anyway (and :mod:`importlib.resources` costs a first key 13 to 15 ms to
import: ``python -X importtime -c "import pathlib, importlib.resources"``, three runs).
"""

from __future__ import annotations

import os

from oncely.errors import MigrationError

_HERE = os.path.dirname(os.path.realpath(__file__))
_DATA = os.path.join(_HERE, "_data")
"""Where an installed package keeps its files (paths are plain strings: :mod:`pathlib` would
cost a first key 2 to 4 ms to import)."""


def _source_repo() -> str | None:
    """The repository when this package runs from its source tree
    (``<repo>/bindings/python/src/oncely``), else None."""
    parts = _HERE.split(os.sep)
    if parts[-4:] != ["bindings", "python", "src", "oncely"]:
        return None
    repo = os.sep.join(parts[:-4]) or os.sep
    if not os.path.isfile(os.path.join(repo, "bindings", "oncely-core.wasm")):
        return None
    return repo


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def component() -> bytes:
    """The core component's bytes."""
    repo = _source_repo()
    if repo is not None:
        return _read(os.path.join(repo, "bindings", "oncely-core.wasm"))
    return _read(os.path.join(_DATA, "oncely-core.wasm"))


def migration_files(dialect: str) -> list[tuple[str, bytes]]:
    """(file name, bytes) of each SQL migration for ``dialect`` (``sqlite`` or ``postgres``), in
    name order; none is a ``MigrationError``."""
    repo = _source_repo()
    root = (
        os.path.join(repo, "migrations", dialect)
        if repo is not None
        else os.path.join(_DATA, "migrations", dialect)
    )
    found = (
        [(n, _read(os.path.join(root, n))) for n in os.listdir(root) if n.endswith(".sql")]
        if os.path.isdir(root)
        else []
    )
    if not found:
        raise MigrationError(f"no {dialect} migrations are packaged with oncely")
    return sorted(found)


def redis_script(name: str) -> str:
    """The text of the Redis store's Lua script ``name`` (``index``, ``insert``, ``update``,
    ``delete``): ``migrations/redis/<name>.lua``, the one text every host loads."""
    repo = _source_repo()
    root = (
        os.path.join(repo, "migrations", "redis")
        if repo is not None
        else os.path.join(_DATA, "migrations", "redis")
    )
    path = os.path.join(root, f"{name}.lua")
    if not os.path.isfile(path):
        raise MigrationError(f"the Redis script {name}.lua is not packaged with oncely")
    return _read(path).decode("utf-8")
