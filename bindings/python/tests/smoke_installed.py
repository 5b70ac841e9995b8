"""The installed package, without pytest: ``python smoke_installed.py REPO`` runs every test of
``test_installed.py`` (the wheel's contents, its version, a golden key, the migrations, one
effect through a SQLite ledger and its replay) against the ``oncely`` this Python imports.

For a bare virtual environment with only the wheel installed (``scripts/release-check.sh``). Run
it from a directory outside the source tree, so that ``import oncely`` finds the installation;
the first test fails otherwise. Exits non-zero if any test fails or none ran.
"""

from __future__ import annotations

import inspect
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    repo = Path(sys.argv[1]).resolve()
    sys.path.insert(0, str(HERE))  # for test_installed alone: oncely is the installed one
    import test_installed

    import oncely

    print(f"oncely {oncely.__version__} from {Path(oncely.__file__).parent}", flush=True)
    tests = [(n, f) for n, f in vars(test_installed).items() if n.startswith("test_")]
    failed = 0
    for name, fn in tests:
        with tempfile.TemporaryDirectory(prefix="oncely-smoke.") as tmp:
            given = {"repo": repo, "tmp_path": Path(tmp)}
            kwargs = {p: given[p] for p in inspect.signature(fn).parameters}
            try:
                fn(**kwargs)
            except Exception:  # noqa: BLE001 - every failure is reported, then counted
                failed += 1
                print(f"FAILED {name}", flush=True)
                traceback.print_exc()
            else:
                print(f"passed {name}", flush=True)
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
