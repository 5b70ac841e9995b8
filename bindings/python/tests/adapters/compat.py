"""What the adapter tests found, for the README's compatibility table (``scripts/compat``).

A story test calls :func:`record` with what the provider paid; when ``ONCELY_COMPAT_DIR`` is set
(``scripts/test`` sets it), the count is merged into that folder's record of the framework, with
the version of its package installed here. ``scripts/compat`` writes the table from these
records, so that it says only what a test run found.
"""

from __future__ import annotations

import json
import os
from importlib.metadata import version
from pathlib import Path

STORIES = ("re-ask", "kill-resume")
"""The model re-asks with a new call id and respelled arguments; the process is killed inside
the tool after the provider paid, and the run is resumed."""


def record(
    framework: str, *, package: str, run: str, story: str, paid: int, bare: bool,
    how: str | None = None, engine: bool = False,
) -> None:  # fmt: skip
    """Record that in ``story`` the provider paid ``paid`` time(s), bare (``bare``: the
    framework's own tool) or through oncely. ``run``: what the adapter takes as the run;
    ``how``: how the story resumed (e.g. "from its SQLite checkpoint"); ``engine``: a durable
    engine's step, which no model asks for (the re-ask story does not apply)."""
    assert story in STORIES, story
    folder = os.environ.get("ONCELY_COMPAT_DIR")
    if not folder:
        return
    path = Path(folder) / f"python-{package}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = json.loads(path.read_text()) if path.exists() else {}
    doc.update(
        framework=framework, language="Python", package=package, version=version(package), run=run
    )
    if engine:
        doc["engine"] = True
    entry = doc.setdefault("stories", {}).setdefault(story, {})
    entry["bare" if bare else "oncely"] = paid
    if how is not None:
        entry["how"] = how
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
