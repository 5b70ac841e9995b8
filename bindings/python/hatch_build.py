"""Build hook: the package carries the core component, the ledger's SQL migrations and the Redis
store's Lua scripts.

All are read from the repository, not from a Rust build, so the package builds and installs
with no Rust toolchain: the component from ``bindings/oncely-core.wasm`` (committed; the Rust
tests check it is byte for byte what the current sources build), the migrations from
``migrations/`` (``migrations/redis/*.lua`` for the Redis store) — the very files the Rust host
applies, so both hosts record the same checksums and run the same scripts. Outside the repository (a build from the sdist), the copies the sdist carries under
``src/oncely/_data/`` are used.

Nothing is written into the source tree: the files go straight from where they are into the
archive (hatchling's ``force_include``), so ``pip install ./bindings/python`` works from a
read-only checkout, as do ``pip install "oncely @ git+URL#subdirectory=bindings/python"`` and
``python -m build``. An editable install (``pip install -e``) carries no copies: the source tree
reads the repository's own files (``src/oncely/_files.py``). The wheel is pure Python
(``py3-none-any``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

DATA = "src/oncely/_data"
DIALECTS = {"sqlite": "*.sql", "postgres": "*.sql", "redis": "*.lua"}
"""Each folder of ``migrations/`` the package carries, and its files."""


def _from_repo(repo: Path) -> dict[Path, str] | None:
    """Each file under ``_data/`` and where it is in the repository; None outside it."""
    wasm = repo / "bindings" / "oncely-core.wasm"
    if not wasm.is_file():
        return None
    files = {wasm: "oncely-core.wasm"}
    for dialect, pattern in DIALECTS.items():
        src = repo / "migrations" / dialect
        sql = sorted(src.glob(pattern))
        if not sql:
            raise RuntimeError(f"oncely: no migrations in {src}")
        files.update({f: f"migrations/{dialect}/{f.name}" for f in sql})
    return files


def _from_sdist(data: Path) -> dict[Path, str]:
    """The copies an sdist carries under ``src/oncely/_data/``."""
    files = {p: p.relative_to(data).as_posix() for p in sorted(data.rglob("*")) if p.is_file()}
    rels = set(files.values())
    missing = [
        what
        for what, ok in [
            ("the core component (oncely-core.wasm)", "oncely-core.wasm" in rels),
            *(
                (f"the {d} migrations", any(r.startswith(f"migrations/{d}/") for r in rels))
                for d in DIALECTS
            ),
        ]
        if not ok
    ]
    if missing:
        raise RuntimeError(
            f"oncely: {' and '.join(missing)} missing: build from the repository "
            "(bindings/python, next to bindings/oncely-core.wasm and migrations/) "
            f"or from its sdist (which carries them under {DATA}/)"
        )
    return files


def sources(root: Path) -> dict[Path, str]:
    """The files to ship under ``oncely/_data/``: the repository's when ``root`` is its
    ``bindings/python``, else the sdist's copies."""
    files = _from_repo(root.parent.parent)
    return files if files is not None else _from_sdist(root / DATA)


class CoreFilesHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the component and the migrations to the sdist (under ``src/oncely/_data/``) and to
    the wheel (under ``oncely/_data/``)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name == "wheel" and version == "editable":
            return  # the source tree reads the repository's files itself
        into = {"wheel": "oncely/_data", "sdist": DATA}[self.target_name]
        for src, rel in sources(Path(self.root)).items():
            build_data["force_include"][str(src)] = f"{into}/{rel}"
