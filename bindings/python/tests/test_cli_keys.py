"""Python keys equal the Rust CLI's keys (``oncely key --lines --json``) for the same intents: the
golden key vectors and random intents generated here."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from helpers import run

import oncely

Vectors = Callable[[str], Any]

POLICIES: list[dict[str, Any] | None] = [
    None,
    {"class": "irreversible-external", "key": {"ignore": ["/ts", "/meta/trace"]},
     "reconcile": "manual"},
    {"class": "accumulating-write", "key": {"identity": "run"}},
    {"class": "accumulating-write", "key": {"identity": "scope", "ignore": ["/ts"]}},
]  # fmt: skip


def _line(scope: str, run_id: str, step: str, tool: str, args_text: str) -> str:
    """One JSONL intent for the CLI; ``args`` is embedded as raw JSON, exactly as given (the
    CLI hands the raw text to the core). Newlines in JSON text are whitespace: made spaces."""
    head = json.dumps({"scope": scope, "run": run_id, "step": step, "tool": tool})
    return head[:-1] + ', "args": ' + args_text + "}"


def _cli_keys(
    oncely_cli: Path, tmp_path: Path, lines: list[str], policy: dict[str, Any] | None
) -> list[dict[str, str]]:
    cmd = [str(oncely_cli), "key", "--lines", "--json"]
    if policy is not None:
        pfile = tmp_path / "policy.json"
        pfile.write_text(json.dumps(policy))
        cmd += ["--policy", str(pfile)]
    # Split on "\n" only: the output may hold U+2028 and other characters splitlines() breaks on.
    out = run(cmd, input="\n".join(lines) + "\n").stdout.rstrip("\n").split("\n")
    assert len(out) == len(lines)
    return [json.loads(o) for o in out]


def _compare(intents: list[dict[str, Any]], cli: list[dict[str, str]], policy: Any) -> None:
    ours = oncely.derive_many(intents, policy=policy)
    for intent, mine, theirs in zip(intents, ours, cli, strict=True):
        assert isinstance(mine, oncely.DerivedKey), (intent, mine)
        got = {"key": mine.key, "preimage": mine.preimage, "fingerprint": mine.fingerprint,
               "args_canonical": mine.args_canonical}  # fmt: skip
        assert got == theirs, intent
        one = oncely.derive_key(
            scope=intent["scope"], run=intent["run"], step=intent["step"], tool=intent["tool"],
            args=intent["args"], policy=policy,
        )  # fmt: skip
        assert one == theirs["key"], intent


def test_key_vectors_equal_the_cli(vectors: Vectors, oncely_cli: Path, tmp_path: Path) -> None:
    by_policy: dict[str, list[dict[str, Any]]] = {}
    for c in vectors("keys.json")["cases"]:
        if "error" not in c:
            by_policy.setdefault(json.dumps(c["policy"], sort_keys=True), []).append(c)
    assert sum(len(v) for v in by_policy.values()) >= 10
    for policy_text, cases in by_policy.items():
        policy = json.loads(policy_text)
        intents, lines = [], []
        for c in cases:
            i = c["intent"]
            args = i["args"].replace("\n", " ").replace("\r", " ")
            intents.append({**{k: i[k] for k in ("scope", "run", "step", "tool")}, "args": args})
            lines.append(_line(i["scope"], i["run"], i["step"], i["tool"], args))
        cli = _cli_keys(oncely_cli, tmp_path, lines, policy)
        _compare(intents, cli, policy)
        assert [r["key"] for r in cli] == [c["key"] for c in cases]


ALPHABET = 'abcxyzAZ09 _-:/é日本🙂\t"\\\u0001\u007f\u2028'


def _text(rng: random.Random, lo: int = 0) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(lo, 12)))


def _value(rng: random.Random, depth: int) -> Any:
    k = rng.randrange(9 if depth < 4 else 6)
    if k == 0:
        return None
    if k == 1:
        return rng.random() < 0.5
    if k == 2:
        return rng.randint(-(2**53), 2**53)
    if k == 3:  # any finite double, by its bits
        while True:
            f = rng.uniform(-1, 1) * 10 ** rng.randint(-320, 308)
            if math.isfinite(f):
                return f
    if k in (4, 5):
        return _text(rng)
    if k in (6, 7):
        return {_text(rng): _value(rng, depth + 1) for _ in range(rng.randint(0, 5))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]


def test_random_intents_equal_the_cli(oncely_cli: Path, tmp_path: Path) -> None:
    rng = random.Random(20261130)
    for policy in POLICIES:
        intents, lines = [], []
        for n in range(250):
            args = {_text(rng): _value(rng, 1) for _ in range(rng.randint(0, 6))}
            if rng.random() < 0.3:
                args["ts"] = rng.randint(0, 2**40)
            if rng.random() < 0.2:
                args["meta"] = {"trace": _text(rng), "x": n}
            text = json.dumps(
                args, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, None, 1, 2])
            ).replace("\n", " ")
            intent = {
                "scope": "t" + _text(rng),
                "run": "r" + _text(rng),
                "step": "s" + _text(rng),
                "tool": "tool" + _text(rng),
                "args": text,
            }
            intents.append(intent)
            lines.append(
                _line(intent["scope"], intent["run"], intent["step"], intent["tool"], text)
            )
        cli = _cli_keys(oncely_cli, tmp_path, lines, policy)
        _compare(intents, cli, policy)
        if policy is None:  # every part in the key: distinct intents, distinct keys
            assert len({r["key"] for r in cli}) == len(cli)
