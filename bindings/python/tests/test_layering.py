"""No import circles in the package: a module never imports, even lazily or for type checking
only, a module that imports it back (``aio ↔ ledger ↔ tool`` were one). Package ``__init__``
modules re-export and are left out: importing ``oncely.x`` runs ``oncely/__init__`` anyway."""

from __future__ import annotations

import ast
from pathlib import Path

import oncely

ROOT = Path(oncely.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str, modules: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                base = ".".join(up[: len(up) - node.level + 1] + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for t in targets:
            if t in modules and t != name:
                out.add(t)
    return out


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in ROOT.rglob("*.py")}
    modules = set(files)
    packages = {m for m, p in files.items() if p.name == "__init__.py"}
    return {m: imports_of(p, m, modules) - packages for m, p in files.items() if m not in packages}


def test_the_package_has_no_import_circles() -> None:
    g = graph()
    assert "oncely.ledger" in g and "oncely.tool" in g and "oncely.aio" in g
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(g.get(m, ())):
            if state.get(n) == 1:
                cycles.append([*path[path.index(n) :], n])
            elif n not in state:
                visit(n, [*path, n])
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m, [m])
    assert cycles == []
