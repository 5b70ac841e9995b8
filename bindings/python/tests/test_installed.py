"""The package under test is the installed wheel, and it carries what it needs."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

import oncely


def test_imported_from_an_installation_not_the_source_tree() -> None:
    here = Path(__file__).resolve().parent.parent
    location = Path(oncely.__file__).resolve()
    assert "site-packages" in location.parts, location
    assert here / "src" not in location.parents, location


def test_the_wheel_carries_the_component_and_the_migrations(repo: Path) -> None:
    data = importlib.resources.files("oncely").joinpath("_data")
    wasm = data.joinpath("oncely-core.wasm").read_bytes()
    assert wasm[:4] == b"\0asm"
    assert wasm == (repo / "bindings" / "oncely-core.wasm").read_bytes()
    for dialect in ("sqlite", "postgres"):
        shipped = {
            f.name: f.read_bytes()
            for f in data.joinpath("migrations", dialect).iterdir()
            if f.name.endswith(".sql")
        }
        source = {p.name: p.read_bytes() for p in (repo / "migrations" / dialect).glob("*.sql")}
        assert shipped == source, dialect


def test_typed_package() -> None:
    assert importlib.resources.files("oncely").joinpath("py.typed").is_file()
