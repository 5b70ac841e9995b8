"""The Restate engine's tests: a Restate server for them, and the provider's execution counts,
printed after the run.

The server is the binary of the npm package @restatedev/restate-server (its platform package),
as npm ci puts it in bindings/js/node_modules, or $ONCELY_RESTATE_SERVER; without it the story is
skipped loudly (failed under CI). It is started on free 127.0.0.1 ports with a data directory of
its own; its startup version check looks a name up over DNS, so where the tests run as root with
``unshare`` it gets a resolv.conf naming 127.0.0.1 (a mount namespace of its own).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from payments import COUNTS

REPO = Path(__file__).resolve().parents[5]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if COUNTS:
        terminalreporter.section("restate engine: what the provider executed")
        for line in COUNTS:
            terminalreporter.write_line(line)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def server_binary() -> Path:
    given = os.environ.get("ONCELY_RESTATE_SERVER")
    arch = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "?")
    system = platform.system().lower()
    package = f"bindings/js/node_modules/@restatedev/restate-server-{system}-{arch}"
    path = Path(given) if given else REPO / package / "bin/restate-server"
    if not path.is_file():
        reason = f"{path} is missing (npm ci in bindings/js installs it; or ONCELY_RESTATE_SERVER)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"the Restate server is required here: {reason}")
        pytest.skip(f"SKIPPED LOUDLY, the Restate story did not run: {reason}")
    return path


@dataclass
class Restate:
    ingress: str
    admin: str
    log: Path

    def post(self, url: str, body: Any, headers: dict[str, str] | None = None) -> Any:
        data = json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method="POST")
        request.add_header("content-type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        with urllib.request.urlopen(request, timeout=90) as response:
            return json.loads(response.read())

    def get(self, url: str) -> Any:
        with urllib.request.urlopen(url, timeout=90) as response:
            return json.loads(response.read())

    def register(self, uri: str) -> Any:
        return self.post(f"{self.admin}/deployments", {"uri": uri, "force": True})


def _isolated_dns(work: Path) -> list[str]:
    """The command prefix that gives the server a resolv.conf naming 127.0.0.1, if it can."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return []
    if subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode:
        return []
    resolv = work / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.1\n")
    script = 'mount --bind "$0" /etc/resolv.conf && exec "$@"'
    return ["unshare", "-m", "sh", "-c", script, str(resolv)]


@pytest.fixture(scope="module")
def restate_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Restate]:
    binary = server_binary()
    work = tmp_path_factory.mktemp("restate")
    ingress, admin, fabric = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "RESTATE_DISABLE_TELEMETRY": "true",
        "RESTATE_INGRESS__BIND_ADDRESS": f"127.0.0.1:{ingress}",
        "RESTATE_ADMIN__BIND_ADDRESS": f"127.0.0.1:{admin}",
        "RESTATE_BIND_ADDRESS": f"127.0.0.1:{fabric}",
        "RESTATE_ADVERTISED_ADDRESS": f"http://127.0.0.1:{fabric}/",
        # Retries after 100 ms, backing off to 1 s (the default: 500 ms to 1 min).
        "RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL": "100ms",
        "RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL": "1s",
        "RUST_LOG": "warn",
        "NO_COLOR": "1",
    }
    argv = [
        *_isolated_dns(work), str(binary), "--no-logo", "--base-dir", str(work / "data"),
        "--listen-mode", "tcp", "--default-num-partitions", "1",
    ]  # fmt: skip
    log = work / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Restate(f"http://127.0.0.1:{ingress}", f"http://127.0.0.1:{admin}", log)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"restate-server exited:\n{log.read_text()}"
            try:
                urllib.request.urlopen(f"{server.admin}/health", timeout=2).close()
                urllib.request.urlopen(f"{server.ingress}/restate/health", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"no Restate in 60 s:\n{log.read_text()}"
                time.sleep(0.1)
        yield server
    finally:
        proc.kill()
        proc.wait()
