"""A URL that names several PostgreSQL servers with ``target_session_attrs=read-write``
(``postgres://u@h1:p1,h2:p2/db?…``): psycopg passes it to libpq, which tries the hosts in turn on
every connect. Two clusters of the test's own stand in for a primary and its replica (a server
with ``default_transaction_read_only`` on answers ``SHOW transaction_read_only`` with ``on``, as
a hot standby does): the store opens on the writable one, and when it dies and the other is made
writable (a promotion), the next call goes there. The chaos harness's ``failover`` phase
(tests/chaos/chaos.py) does the same with a real streaming replica and ``pg_ctl promote``."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import psycopg
import pytest

from oncely.errors import StorageError
from oncely.store.postgres import PostgresStore

pytestmark = pytest.mark.postgres


def _exec(url: str, sql: str) -> None:
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(sql)  # type: ignore[arg-type]


def _port(store: PostgresStore) -> int:
    with store._conn() as c:  # which server the pool reaches
        row = c.execute("SELECT inet_server_port()").fetchone()
    assert row is not None
    return int(row[0])


def test_a_multi_host_url_keeps_the_writable_server_and_follows_a_promotion(
    repo: Path, pg_own_cluster: tuple[str, Path]
) -> None:
    a, a_dir = pg_own_cluster
    b = subprocess.run(
        [str(repo / "tests/pg/start.sh"), "--with-dir"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.splitlines()[0]
    pa, pb = (u.removeprefix("postgres://postgres@").removesuffix("/postgres") for u in (a, b))
    PostgresStore(b).close()  # both hold the schema, as a replica would
    _exec(b, "ALTER SYSTEM SET default_transaction_read_only = on")
    _exec(b, "SELECT pg_reload_conf()")
    time.sleep(0.3)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    rw = PostgresStore(
        f"postgres://postgres@127.0.0.1:{dead},{pb},{pa}/postgres?target_session_attrs=read-write"
    )
    assert _port(rw) == int(pa.rsplit(":")[1])
    rw.close()

    store = PostgresStore(f"postgres://postgres@{pa},{pb}/postgres?target_session_attrs=read-write")
    assert _port(store) == int(pa.rsplit(":")[1])
    subprocess.run([str(repo / "tests/pg/stop.sh"), str(a_dir)], check=True, timeout=120)
    _exec(b, "ALTER SYSTEM RESET default_transaction_read_only")
    _exec(b, "SELECT pg_reload_conf()")
    time.sleep(0.3)
    started, last = time.monotonic(), None
    while time.monotonic() - started < 15:
        try:
            assert store.get("acme", "k") is None
            last = None
            break
        except StorageError as e:  # a call on a connection to the dead server fails
            last = e
    assert last is None, f"the store did not follow the promotion: {last!r}"
    assert time.monotonic() - started < 5
    assert _port(store) == int(pb.rsplit(":")[1])
    store.close()
