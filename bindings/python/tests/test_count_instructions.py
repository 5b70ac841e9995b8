"""``count_instructions.py``'s loops (what callgrind counts; valgrind itself is not needed here):
each operation runs after its set-up and answers what the operation answers, so that a count is
of the work named and two builds are compared only when they answer alike."""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from pathlib import Path

import pytest
from helpers import run

import oncely

HERE = Path(__file__).resolve().parent.parent


def loop(op: str, n: int) -> str:
    cmd = [sys.executable, "count_instructions.py", "--loop", op, str(n)]
    return run(cmd, cwd=HERE, timeout=300).stdout.strip()


@pytest.mark.parametrize(("op", "replayed"), [("fresh", False), ("replay", True)])
def test_an_effect_loop_runs_the_bench_tool_fresh_or_replayed(op: str, replayed: bool) -> None:
    value, key, was_replayed = ast.literal_eval(loop(op, 2))
    assert value == {"refund_id": "re_1", "status": "succeeded"}
    assert key.startswith("oncely1:") and was_replayed is replayed


@pytest.mark.parametrize(("op", "size"), [("key200", 200), ("key64k", 64 << 10)])
def test_a_key_loop_derives_the_bench_key(op: str, size: int) -> None:
    sys.path.insert(0, str(HERE))
    import bench

    args = bench.make_args(size, seed=7)
    text = json.dumps(args, separators=(",", ":"), ensure_ascii=False)
    canonical = hashlib.sha256(oncely.canonicalize(text).encode()).hexdigest()
    assert loop(op, 1) == oncely.derive_key(**bench.INTENT, args=args) + canonical
