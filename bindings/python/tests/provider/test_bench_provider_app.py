"""``bench_provider_app.py``, the FastAPI side of ``bindings/js/bench/provider.mjs``
(scripts/bench), in uvicorn: bare it answers every POST, behind the middleware a repeated key is
a replay and a new one a fresh effect, so the bench measures what it says."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from harness import PY, Proc, free_port

BENCH_DIR = Path(__file__).resolve().parents[2]


def post(url: str, key: str) -> tuple[int, dict[str, str], dict[str, object]]:
    req = urllib.request.Request(
        f"{url}/refunds",
        data=json.dumps({"charge": "ch_1", "amount": 4999}).encode(),
        headers={"content-type": "application/json", "idempotency-key": key},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, {k.lower(): v for k, v in r.headers.items()}, json.loads(r.read())


def serve(tmp: Path, name: str, env: dict[str, str]) -> Proc:
    port = free_port()
    cmd = [PY, "-m", "uvicorn", "bench_provider_app:app", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--app-dir", str(BENCH_DIR), "--log-level", "warning"]
    return Proc(name, cmd, tmp / f"{name}.log", port, env)


def test_the_bench_app_bare_and_behind_the_middleware(tmp_path: Path) -> None:
    bare = serve(tmp_path, "bare", {"ONCELY_BENCH_LEDGER": ""})
    try:
        for key in ("a", "a"):
            status, headers, body = post(bare.url, key)
            assert (status, body["id"]) == (201, "re_ch_1")
            assert "idempotent-replayed" not in headers
    finally:
        bare.stop()
    keyed = serve(tmp_path, "keyed", {"ONCELY_BENCH_LEDGER": str(tmp_path / "ledger.db")})
    try:
        first = post(keyed.url, "k-1")
        again = post(keyed.url, "k-1")
        other = post(keyed.url, "k-2")
    finally:
        keyed.stop()
    assert first[0] == again[0] == other[0] == 201
    assert "idempotent-replayed" not in first[1] and "idempotent-replayed" not in other[1]
    assert again[1].get("idempotent-replayed") == "true" and again[2] == first[2]
