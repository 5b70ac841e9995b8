"""Fixtures of the MCP scenario tests: processes cleaned up, logs shown on failure, the gateway
binary, a PostgreSQL URL, and the closing table of charge counts (bare server vs gateway)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import harness
from harness import Proc

# What each scenario counted: {scenario: {"bare": n, "gateway": m}}.
COUNTS: dict[str, dict[str, int]] = {}
UNITS: dict[str, str] = {}


def report(scenario: str, half: str, n: int, what: str = "charges") -> None:
    COUNTS.setdefault(scenario, {})[half] = n
    UNITS[scenario] = what
    other = "gateway" if half == "bare" else "bare"
    seen = COUNTS[scenario].get(other)
    print(
        f"\n[{scenario}] {half}: {n} {what}" + (f" ({other}: {seen})" if seen is not None else "")
    )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not COUNTS:
        return
    terminalreporter.section("real effects: bare server vs through `oncely mcp`")
    for scenario, c in COUNTS.items():
        bare = c.get("bare", "-")
        gw = c.get("gateway", "-")
        terminalreporter.write_line(f"{scenario:<48} bare: {bare} {UNITS[scenario]}; gateway: {gw}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Procs:
    """Starts processes for one test; stops them all at its end, and prints their logs if it
    failed."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.all: list[Proc] = []

    def start(
        self,
        name: str,
        cmd: list[str],
        *,
        port: int | None = None,
        env: dict[str, str] | None = None,
    ) -> Proc:
        p = Proc(name, cmd, self.tmp / f"{name}.log", port=port, env=env)
        self.all.append(p)
        return p

    def payments_http(
        self, charges: Path, late_ms: int = 0, late_times: int | None = None, name: str = "payments"
    ) -> Proc:
        port = harness.free_port()
        return self.start(
            name, harness.payments_cmd(charges, late_ms, late_times, http=port), port=port
        )

    def gateway_http(
        self, db: str, *opts: str, upstream: list[str] | str, name: str = "gateway"
    ) -> Proc:
        port = harness.free_port()
        cmd = harness.gateway_cmd(db, "--listen", f"127.0.0.1:{port}", *opts, upstream=upstream)
        return self.start(name, cmd, port=port)

    def stop_all(self) -> None:
        for p in reversed(self.all):
            p.stop()


@pytest.fixture
def procs(request: Any, tmp_path: Path) -> Iterator[Procs]:
    ps = Procs(tmp_path)
    yield ps
    ps.stop_all()
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    if failed:
        for p in ps.all:
            print(f"\n----- {p.name}: {' '.join(p.cmd)}\n{p.output()[-6000:]}")
        for log in sorted(tmp_path.glob("*.stderr")):
            print(f"\n----- {log.name}\n{log.read_text(errors='replace')[-6000:]}")


_GATEWAY_OK: list[str] = []


def require_gateway() -> Path:
    """The `oncely` binary, which must have the `mcp` command (a failure, not a skip, otherwise)."""
    path = harness.oncely_bin()
    if not _GATEWAY_OK:
        if not path.exists():
            pytest.fail(
                f"{path} does not exist: build it (cargo build --release -p oncely-cli) "
                "or set ONCELY_BIN"
            )
        r = subprocess.run([str(path), "mcp", "--help"], capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            pytest.fail(
                f"`{path} mcp --help` exited {r.returncode}: the gateway is not built in:\n"
                + r.stderr[-2000:]
            )
        _GATEWAY_OK.append(str(path))
    return path


@pytest.fixture
def oncely() -> Path:
    return require_gateway()


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def pg_url() -> str:
    url = os.environ.get("ONCELY_TEST_POSTGRES_URL")
    if url:
        return url
    msg = "ONCELY_TEST_POSTGRES_URL is not set (tests/pg/start.sh starts a throwaway PostgreSQL)"
    if _truthy("CI") or _truthy("ONCELY_REQUIRE_POSTGRES"):
        pytest.fail(msg + "; CI / ONCELY_REQUIRE_POSTGRES requires it")
    pytest.skip(msg)
