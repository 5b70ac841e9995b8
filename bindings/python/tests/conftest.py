"""Fixtures: where the repository's vectors, the RFC 8785 reference data, the Rust CLI and the
Rust test worker are, and fresh SQLite and PostgreSQL ledgers.

The tests import the INSTALLED ``oncely`` package (test.sh installs the built wheel into a clean
virtual environment and runs pytest from outside ``src/``); ``test_installed.py`` checks it.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = Path(os.environ.get("ONCELY_REPO_ROOT") or HERE.parent.parent.parent).resolve()


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root."""
    assert (REPO / "wit" / "ledger.wit").is_file(), f"{REPO} is not the oncely repository"
    return REPO


@pytest.fixture(scope="session")
def vectors(repo: Path) -> Callable[[str], Any]:
    """Load one of the golden vector files of ``tests/vectors/``."""

    def load(name: str) -> Any:
        return json.loads((repo / "tests" / "vectors" / name).read_text(encoding="utf-8"))

    return load


@pytest.fixture(scope="session")
def jcs_vectors(repo: Path) -> Path:
    """The RFC 8785 reference data, kept in the repository (``tests/vectors/jcs``). Missing data
    FAILS the tests (never skips)."""
    path = repo / "tests" / "vectors" / "jcs"
    if not (path / "input").is_dir():
        pytest.fail(f"{path} is missing: the RFC 8785 reference data is part of the repository")
    return path


@pytest.fixture(scope="session")
def oncely_cli(repo: Path) -> Path:
    """The Rust CLI (``target/release/oncely``, or ``$ONCELY_CLI``). Missing = FAIL."""
    path = Path(os.environ.get("ONCELY_CLI") or repo / "target" / "release" / "oncely")
    if not path.is_file():
        pytest.fail(f"the Rust CLI {path} is missing: run `cargo build --release -p oncely-cli`")
    return path


@pytest.fixture(scope="session")
def oncely_test_worker(repo: Path) -> Path:
    """The Rust host's test worker (``target/release/oncely-test-worker``, or
    ``$ONCELY_TEST_WORKER``): one effect through the Rust ledger, with the command line of
    ``tests/workers/exec_worker.py``. A test-only binary, never shipped. Missing = FAIL."""
    path = Path(
        os.environ.get("ONCELY_TEST_WORKER") or repo / "target" / "release" / "oncely-test-worker"
    )
    if not path.is_file():
        pytest.fail(
            f"the Rust test worker {path} is missing: run `cargo build --release "
            "-p oncely-test-support --bin oncely-test-worker`"
        )
    return path


@pytest.fixture
def sqlite_path(tmp_path: Path) -> str:
    """A fresh SQLite ledger file path."""
    return str(tmp_path / "ledger.db")


# --- PostgreSQL -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def pg_server() -> str:
    """The throwaway server of ``$ONCELY_TEST_POSTGRES_URL``. When it is unset or unreachable the
    PostgreSQL tests FAIL under ``ONCELY_REQUIRE_POSTGRES=1`` or ``CI``, and are skipped (with the
    reason) otherwise."""
    url = os.environ.get("ONCELY_TEST_POSTGRES_URL", "")
    required = _truthy("ONCELY_REQUIRE_POSTGRES") or _truthy("CI")
    reason = ""
    if not url:
        reason = "ONCELY_TEST_POSTGRES_URL is not set (run the tests under scripts/with-postgres)"
    else:
        try:
            import psycopg

            with psycopg.connect(url, autocommit=True, connect_timeout=10) as c:
                c.execute("SELECT 1")
        except Exception as e:  # noqa: BLE001 - reported as the reason
            reason = f"PostgreSQL at {url} is unreachable: {e}"
    if reason:
        if required:
            pytest.fail(f"PostgreSQL is required here: {reason}")
        pytest.skip(f"SKIPPED LOUDLY, PostgreSQL tests did not run: {reason}")
    return url


def _with_database(url: str, name: str) -> str:
    """``url`` with its database replaced by ``name`` (a URL, so the Rust CLI can use it)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture
def pg_dsn(pg_server: str) -> Iterator[str]:
    """A fresh, empty database on the test server (dropped afterwards)."""
    import psycopg

    name = f"oncely_py_{secrets.token_hex(6)}"
    with psycopg.connect(pg_server, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(pg_server, name)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def pg_own_cluster(repo: Path) -> tuple[str, Path]:
    """A throwaway PostgreSQL cluster of the test module's own (``tests/pg/start.sh
    --with-dir``), for tests that restart the server (never the shared one other tests use): its
    URL and its directory, for ``tests/pg/restart.sh`` (``helpers.restart_postgres``). It stops
    when this process exits. When no server can be started the tests FAIL under
    ``ONCELY_REQUIRE_POSTGRES=1`` or ``CI``, and are skipped (with the reason) otherwise."""
    p = subprocess.run(
        [str(repo / "tests" / "pg" / "start.sh"), "--with-dir", str(os.getpid())],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if p.returncode != 0:
        reason = f"no PostgreSQL server of the test's own could be started: {p.stderr.strip()}"
        if _truthy("ONCELY_REQUIRE_POSTGRES") or _truthy("CI"):
            pytest.fail(f"PostgreSQL is required here: {reason}")
        pytest.skip(f"SKIPPED LOUDLY, PostgreSQL tests did not run: {reason}")
    url, cluster = p.stdout.splitlines()[:2]
    return url, Path(cluster)


# The test modules whose ledger_location must also be the Rust host's (its workers, its CLI, its
# SQL schema and migrations): the Rust host has no DynamoDB store, so their DynamoDB cases are
# deselected (pytest reports them as deselected, never as passed).
RUST_HOST_MODULES = frozenset({"test_cross_language", "test_migrations"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    drop = [
        item
        for item in items
        if getattr(item, "callspec", None) is not None
        and item.callspec.params.get("ledger_location") == "dynamodb"
        and item.module is not None
        and item.module.__name__ in RUST_HOST_MODULES
    ]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [item for item in items if item not in drop]


@pytest.fixture(params=["sqlite", "postgres", "dynamodb"])
def ledger_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh ledger location for each backend: a SQLite path, a PostgreSQL URL, a DynamoDB
    table."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.db")
    if request.param == "dynamodb":
        return str(request.getfixturevalue("dynamodb_location"))
    return str(request.getfixturevalue("pg_dsn"))


# --- DynamoDB ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def dynamodb_endpoint() -> str:
    """The throwaway DynamoDB-compatible server of ``$ONCELY_TEST_DYNAMODB_URL`` (moto's server
    mode, ``scripts/with-dynamodb``). When it is unset or unreachable the DynamoDB tests FAIL
    under ``ONCELY_REQUIRE_DYNAMODB=1`` or ``CI``, and are skipped (with the reason) otherwise.
    Test credentials and a region are set when none are (the server accepts any)."""
    url = os.environ.get("ONCELY_TEST_DYNAMODB_URL", "")
    reason = ""
    if not url:
        reason = "ONCELY_TEST_DYNAMODB_URL is not set (run the tests under scripts/with-dynamodb)"
    else:
        import urllib.error
        import urllib.request

        try:
            urllib.request.urlopen(url, timeout=10).close()
        except urllib.error.HTTPError:
            pass  # it answered
        except OSError as e:
            reason = f"DynamoDB at {url} is unreachable: {e}"
    if reason:
        if _truthy("ONCELY_REQUIRE_DYNAMODB") or _truthy("CI"):
            pytest.fail(f"DynamoDB is required here: {reason}")
        pytest.skip(f"SKIPPED LOUDLY, DynamoDB tests did not run: {reason}")
    for k, v in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                 ("AWS_REGION", "us-east-1"), ("AWS_DEFAULT_REGION", "us-east-1")):  # fmt: skip
        os.environ.setdefault(k, v)
    return url


@pytest.fixture
def dynamodb_location(dynamodb_endpoint: str) -> Iterator[str]:
    """A ledger location on a fresh table of the test server (deleted afterwards)."""
    import boto3

    table = f"oncely_py_{secrets.token_hex(6)}"
    yield f"dynamodb://{table}?endpoint={urllib.parse.quote(dynamodb_endpoint, safe='')}"
    db = boto3.client("dynamodb", endpoint_url=dynamodb_endpoint)
    with contextlib.suppress(db.exceptions.ResourceNotFoundException):
        db.delete_table(TableName=table)
    db.close()
