"""The package under test is the installed wheel, and it carries what it needs.

Also run without pytest, against a wheel installed into a bare virtual environment, by
``smoke_installed.py`` (``scripts/release-check.sh``): each test here takes only ``repo`` and
``tmp_path``, and needs nothing but the package and the standard library.
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import json
from pathlib import Path

import oncely
from oncely.store._migrate import migrations


def test_imported_from_an_installation_not_the_source_tree() -> None:
    here = Path(__file__).resolve().parent.parent
    location = Path(oncely.__file__).resolve()
    assert "site-packages" in location.parts, location
    assert here / "src" not in location.parents, location


def test_the_wheel_carries_the_component_and_the_migrations(repo: Path) -> None:
    """The component, the SQL migrations and the Redis store's scripts."""
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
    # The Redis store's Lua scripts, the one text every host loads.
    shipped = {f.name: f.read_bytes() for f in data.joinpath("migrations", "redis").iterdir()}
    source = {p.name: p.read_bytes() for p in (repo / "migrations" / "redis").glob("*.lua")}
    assert shipped == source and source, sorted(shipped)


def test_typed_package() -> None:
    assert importlib.resources.files("oncely").joinpath("py.typed").is_file()


def test_the_version_is_the_installed_distributions() -> None:
    assert oncely.__version__ == importlib.metadata.version("oncely")
    assert oncely.__version__[:1].isdigit(), oncely.__version__


def test_a_golden_key(repo: Path) -> None:
    case = json.loads((repo / "tests" / "vectors" / "keys.json").read_text(encoding="utf-8"))[
        "cases"
    ][0]
    i = case["intent"]
    got = oncely.derive_key(
        scope=i["scope"], run=i["run"], step=i["step"], tool=i["tool"], args=i["args"],
        policy=case["policy"],
    )  # fmt: skip
    assert got == case["key"], (got, case["key"])


def test_the_migrations_load_from_the_package(repo: Path) -> None:
    for dialect in ("sqlite", "postgres"):
        loaded = [m.version for m in migrations(dialect)]
        source = sorted(
            int(p.name.split("_")[0]) for p in (repo / "migrations" / dialect).glob("*.sql")
        )
        assert loaded == source and loaded, (dialect, loaded, source)


def test_one_effect_through_a_sqlite_ledger_and_its_replay(tmp_path: Path) -> None:
    calls: list[str] = []

    def refund(key: str) -> dict[str, str]:
        calls.append(key)
        return {"refund_id": "re_1"}

    args = {"charge_id": "ch_1"}
    with oncely.Ledger.sqlite(tmp_path / "ledger.db") as ledger:
        first = ledger.run(refund, scope="acme", run="run-7", tool="refund", args=args)
        again = ledger.run(refund, scope="acme", run="run-7", tool="refund", args=args)
        entry = ledger.get("acme", first.key)
    assert calls == [first.key], calls
    assert first.key == oncely.derive_key(scope="acme", run="run-7", tool="refund", args=args)
    assert (first.value, first.replayed) == ({"refund_id": "re_1"}, False)
    assert (again.value, again.replayed, again.key) == ({"refund_id": "re_1"}, True, first.key)
    assert entry is not None and entry.state is oncely.EntryState.DONE, entry
