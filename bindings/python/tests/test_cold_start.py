"""What ``import oncely`` and a first key load: not the ledger, its machines and events (and
logging: imported at the first use of a name of theirs), not asyncio (a synchronous caller never
needs it), not importlib.metadata (``__version__`` is read at first use, and the component
cache's key reads wasmtime's version from its metadata directory), not importlib.resources or
tempfile (the package's files are read as files; the cache is written through tempfile only when
it is written), not wasmtime-py, typing or threading (the core crossing calls wasmtime's library
through ``oncely._wasm`` with layouts from ``oncely._exports``). The time it takes is measured by
``bench_cold.py`` (scripts/bench), not here."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import oncely
from oncely import _runtime

NOT_LOADED = (
    "asyncio",
    "importlib.metadata",
    "importlib.resources",
    "tempfile",
    "logging",
    "oncely._machine",
    "oncely.ledger",
    # The core crossing calls wasmtime's library itself (oncely._wasm): wasmtime-py's classes,
    # the component's types and the component crossing are never loaded for a first key, nor
    # dataclasses and pathlib; nor hashlib once the compiled module is cached.
    "wasmtime",
    "oncely._codec",
    "dataclasses",
    "pathlib",
    "hashlib",
    # Nor typing (the mirrors' unions are ``A | B``; annotations are never evaluated) and
    # threading (a lock is ``_thread``'s).
    "typing",
    "threading",
)


def fresh(code: str, cache: Path) -> str:
    env = {**os.environ, "ONCELY_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return out.stdout.strip()


FIRST_KEY = f"""
import sys
before = set(sys.modules)  # what the interpreter's start loaded (site, .pth files) is not oncely's
import oncely
key = oncely.derive_key(scope="acme", run="r", step="s", tool="t", args={{"a": 1}})
import json
print(json.dumps([key, [m for m in {NOT_LOADED!r} if m in sys.modules and m not in before]]))
"""


def test_import_and_a_first_key_load_none_of_what_they_do_not_need(tmp_path: Path) -> None:
    # Once with an empty cache (the component compiled and written), once with it warm.
    for run in ("cold", "warm"):
        key, loaded = json.loads(fresh(FIRST_KEY, tmp_path))
        assert key == oncely.derive_key(scope="acme", run="r", step="s", tool="t", args={"a": 1})
        if run == "warm":
            assert loaded == [], loaded
        else:  # compiling checks the component's hash; writing the cache uses tempfile
            assert set(loaded) <= {"tempfile", "hashlib"}, loaded
    assert len(list(tmp_path.glob("core-module-py-*.cwasm"))) == 1


def test_what_is_read_at_first_use_is_what_it_was() -> None:
    assert oncely.__version__ == importlib.metadata.version("oncely")
    assert _runtime.wasmtime_version() == importlib.metadata.version("wasmtime")
    # Where asyncio is imported at first use, the first use finds the real module.
    import asyncio

    from oncely import _machine, ledger, sweeper

    for module in (_machine, ledger, sweeper):
        assert module.asyncio.to_thread is asyncio.to_thread, module
