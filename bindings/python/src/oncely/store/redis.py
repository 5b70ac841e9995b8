"""Redis / Valkey backend (redis-py): a ledger shared by many workers on a Redis server, a
primary with replicas, or a Redis Cluster — the Rust host's layout byte for byte
(``host/src/store/redis.rs``, ``docs/operations.md``), so a Python worker and a Rust worker share
one ledger. Opened by a ``redis://`` URL, or ``rediss://`` (TLS).

Every key of a scope carries the scope as its hash tag, ``<prefix>:{<scope>}:…`` (the scope with
``%`` and ``}`` percent-encoded, ``%`` for the empty scope), so that the keys one write touches
sit in one slot of a cluster: the entry's hash (``row``: the row as a JSON object of the SQL
columns' names; ``v``, ``s``, ``t``, ``f``, ``r``: what a replay reads), its history list (one
JSON record per write the core marks), and the scope's sorted sets ``due``, ``upd``, ``esc``,
``doubt``, ``ask``, ``ap:<tool>`` and counts ``n``. ``<prefix>:scopes`` holds every scope, for
the queries across scopes.

A claim (``insert``), a compare-and-set ``update`` and a ``delete`` are each one Lua script, the
files of ``migrations/redis/`` that every host loads (EVALSHA, loaded again on NOSCRIPT): the
row, its history record, its counts and its indexes are written atomically.

What a write that returned survives is the server's configuration, read at open
(:attr:`RedisStore.durability`, logged on the ``oncely`` logger). With ``?wait_replicas=N`` every
write the core marks as a claim (``row-write.claims``: one the tool will be called under) is
followed, on the same connection, by ``WAIT N timeout``; fewer acknowledgements fail the write with
:class:`~oncely.StorageError` (the row is written on the primary: the claim is held, the tool is
not called, and the entry is settled as any interrupted claim is).
"""

from __future__ import annotations

import builtins
import json
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from oncely._files import redis_script
from oncely.errors import StorageError
from oncely.store import HistoryRecord, ListFilter, Recorded
from oncely.store._sql import COLUMNS, from_row, history_from_row, record_of, to_row
from oncely.types import Entry

try:
    import redis
    import redis.cluster
except ImportError:  # pragma: no cover - optional dependency
    redis = None  # type: ignore[assignment]

__all__ = ["Durability", "RedisOptions", "RedisStore"]

_log = logging.getLogger("oncely")

ROW_FIELDS = (
    "scope", "key", "tool", "fingerprint", "args_canonical", "state", "version", "attempt",
    "owner", "created_at", "updated_at", "lease_until", "in_doubt_since", "next_reconcile_at",
    "reconcile_attempts", "result_json", "reason", "resolved_by", "reconcile_kind",
    "reconcile_tool", "lease_ms", "max_call_ms", "reconcile_after_ms", "escalate_after_ms",
    "retention_ms", "due_at", "settlement", "run_id", "step_id",
)  # fmt: skip
"""The row's JSON object, in the order of the Rust host's ``Row`` (so both write the same bytes)."""

_TO_ROW = tuple(COLUMNS.index(f) for f in ROW_FIELDS)
_FROM_ROW = tuple(ROW_FIELDS.index(c) for c in COLUMNS)

BATCH = 200
"""How many members a scan of a sorted set reads per round trip."""

_T = TypeVar("_T")


@dataclass(frozen=True)
class RedisOptions:
    """How a :class:`RedisStore` is opened: read from the URL's query (``?prefix=…&
    wait_replicas=…&wait_timeout_ms=…&tls_ca=…``); every other part of the URL is redis-py's."""

    prefix: str = "oncely"
    """The first part of every key."""
    wait_replicas: int = 0
    """Replicas that must acknowledge every claim before it returns (``WAIT``); 0: none."""
    wait_timeout_ms: int = 1000
    """How long ``WAIT`` waits for them (ms)."""
    tls_ca: str | None = None
    """For ``rediss://``: a PEM file of the certificate authorities to trust instead of the
    system's."""


@dataclass(frozen=True)
class Durability:
    """The server's persistence as read at open, and what it means for the ledger."""

    appendonly: str | None
    """``CONFIG GET appendonly`` (``None``: CONFIG is not allowed on this server)."""
    appendfsync: str | None
    """``CONFIG GET appendfsync``."""
    wait_replicas: int
    """Replicas every claim waits for (:attr:`RedisOptions.wait_replicas`)."""
    cluster: bool
    """Whether the server is part of a cluster."""

    def claims_survive_a_crash(self) -> bool:
        """Whether a claim that returned survives the server's crash (an fsync'd append-only
        file) or the loss of the primary (``wait_replicas``)."""
        fsynced = self.appendonly == "yes" and self.appendfsync == "always"
        return fsynced or self.wait_replicas > 0

    def guarantee(self) -> str:
        """What the ledger guarantees under this configuration, in a sentence (the Rust host's
        words)."""
        if self.appendonly == "yes" and self.appendfsync == "always":
            disk = (
                "every write is in the append-only file and fsync'd before it returns: a claim "
                "survives a crash or power loss of the server"
            )
        elif self.appendonly == "yes" and self.appendfsync == "everysec":
            disk = (
                "writes reach the append-only file at once but are fsync'd once a second: a "
                "crash of the server process loses nothing, a power loss or kernel crash may "
                "lose the last second of claims (an effect may then run twice)"
            )
        elif self.appendonly == "yes":
            disk = (
                "writes reach the append-only file, fsync'd when the OS decides (appendfsync "
                f"{self.appendfsync or '?'}): a crash of the server process loses nothing, a "
                "power loss may lose recent claims (an effect may then run twice)"
            )
        elif self.appendonly == "no":
            disk = (
                "no append-only file (appendonly no): a restart of the server loses every write "
                "since its last snapshot, claims included (an effect may then run twice); set "
                "appendonly yes"
            )
        else:
            disk = (
                "the server's persistence could not be read (CONFIG GET is not allowed): what a "
                "claim survives is what the server is configured for"
            )
        if self.wait_replicas > 0:
            replicas = (
                f"; every claim waits for {self.wait_replicas} replica(s) to acknowledge it "
                "(WAIT), so it survives the loss of the primary once a replica that acknowledged "
                "it is promoted"
            )
        else:
            replicas = (
                "; claims do not wait for replicas: a failover to a replica that had not "
                "received a claim loses it"
            )
        return disk + replicas


def redact(url: str) -> str:
    """The URL without its user and password, for messages."""
    s, at = url.find("://"), url.rfind("@")
    return f"{url[:s]}://…@{url[at + 1 :]}" if s >= 0 and at > s else url


def parse_url(url: str) -> tuple[str, RedisOptions]:
    """The URL with oncely's own query parameters taken out, and the options they give; a
    :class:`ValueError` names a parameter that is not valid."""
    parts = urlsplit(url)
    options: dict[str, Any] = {}
    rest: list[tuple[str, str]] = []
    for k, v in parse_qsl(parts.query, keep_blank_values=True):

        def bad(k: str = k, v: str = v) -> ValueError:
            return ValueError(f"{redact(url)}: {k}={v} is not valid")

        if k == "prefix":
            if not v or "{" in v or "}" in v:
                raise bad()
            options["prefix"] = v
        elif k in ("wait_replicas", "wait_timeout_ms"):
            if not v.isdigit():
                raise bad()
            options[k] = int(v)
        elif k == "tls_ca" and v:
            options["tls_ca"] = v
        else:
            rest.append((k, v))
    return urlunsplit(parts._replace(query=urlencode(rest))), RedisOptions(**options)


def tag(scope: str) -> str:
    """The hash tag of ``scope``: itself with ``%`` and ``}`` percent-encoded; ``%`` for the empty
    scope."""
    return scope.replace("%", "%25").replace("}", "%7D") if scope else "%"


def _dumps(v: Any) -> str:
    # serde_json's bytes: no spaces, UTF-8 as is.
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _decode(text: str) -> Entry:
    try:
        obj = json.loads(text)
        values = tuple(obj[f] for f in ROW_FIELDS)
    except (ValueError, KeyError, TypeError) as e:
        raise StorageError(f"corrupt ledger row (a row's JSON: {e})") from e
    return from_row(tuple(values[i] for i in _FROM_ROW))


def _score(v: float) -> int:
    return int(v)


class RedisStore:
    """A ledger in Redis or Valkey (a single server, a primary with replicas, or a cluster)."""

    def __init__(self, url: str, *, connect_timeout: float = 5.0) -> None:
        if redis is None:
            raise ImportError("oncely's Redis store needs redis-py: pip install 'oncely[redis]'")
        base, self.options = parse_url(url)
        self.url = redact(base)
        kwargs: dict[str, Any] = {
            "decode_responses": True,
            "socket_connect_timeout": connect_timeout,
            # A WAIT's timeout more than any other command's answer may take.
            "socket_timeout": 5.0 + self.options.wait_timeout_ms / 1000,
        }
        if self.options.tls_ca is not None:
            if not base.startswith("rediss://"):
                raise ValueError(f"{self.url}: tls_ca is for rediss:// URLs")
            kwargs["ssl_ca_certs"] = self.options.tls_ca
        try:
            first = redis.Redis.from_url(base, **kwargs)
            try:
                cluster = bool(first.info("cluster").get("cluster_enabled"))
                appendonly = self._config(first, "appendonly")
                appendfsync = self._config(first, "appendfsync")
            finally:
                first.close()
            self._cluster = cluster
            self._client: Any = (
                redis.cluster.RedisCluster.from_url(base, **kwargs)
                if cluster
                else redis.Redis.from_url(base, **kwargs)
            )
        except redis.RedisError as e:
            raise StorageError(f"storage: connecting to {self.url}: {e}") from e
        self.durability = Durability(appendonly, appendfsync, self.options.wait_replicas, cluster)
        """The server's persistence as read at open (:meth:`Durability.guarantee`)."""
        index = redis_script("index")
        self._insert = self._client.register_script(index + redis_script("insert"))
        self._update = self._client.register_script(index + redis_script("update"))
        self._delete = self._client.register_script(redis_script("delete"))
        self._registered: set[str] = set()
        self._lock = threading.Lock()
        level = logging.INFO if self.durability.claims_survive_a_crash() else logging.WARNING
        _log.log(level, "redis ledger at %s: %s", self.url, self.durability.guarantee())

    @staticmethod
    def _config(client: Any, name: str) -> str | None:
        try:
            got = client.config_get(name)
        except redis.ResponseError:
            return None  # CONFIG is not allowed (a managed server, an ACL)
        v = got.get(name)
        return None if v is None else str(v)

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r})"

    def _run(self, fn: Callable[[], _T]) -> _T:
        try:
            return fn()
        except redis.RedisError as e:
            raise StorageError(f"storage: {e}") from e

    # --- keys ---------------------------------------------------------------------------------

    def _scope_key(self, scope: str, what: str) -> str:
        return f"{self.options.prefix}:{{{tag(scope)}}}:{what}"

    def _entry_key(self, scope: str, key: str) -> str:
        return self._scope_key(scope, f"e:{key}")

    def _write_keys(self, scope: str, key: str, tool: str) -> list[str]:
        return [
            self._entry_key(scope, key),
            self._scope_key(scope, f"h:{key}"),
            *(self._scope_key(scope, w) for w in ("due", "upd", "esc", "doubt", "ask", "n")),
            self._scope_key(scope, f"ap:{tool}"),
        ]

    def _scopes(self, scope: str | None) -> list[str]:
        if scope is not None:
            return [scope]
        return sorted(self._client.smembers(f"{self.options.prefix}:scopes"))

    def _register(self, scope: str) -> None:
        with self._lock:
            if scope in self._registered:
                return
        self._client.sadd(f"{self.options.prefix}:scopes", scope)
        with self._lock:
            self._registered.add(scope)

    # --- writes -------------------------------------------------------------------------------

    @staticmethod
    def _write_args(e: Entry) -> list[str]:
        row = to_row(e)
        obj = dict(zip(ROW_FIELDS, (row[i] for i in _TO_ROW), strict=True))
        return [
            str(row[COLUMNS.index("version")]),
            e.state.value,
            e.tool,
            _dumps(obj),
            _dumps(list(record_of(row))),
            "" if e.due_at is None else str(obj["due_at"]),
            str(obj["updated_at"]),
            str(obj["updated_at"] if e.in_doubt_since is None else obj["in_doubt_since"]),
            e.key,
            e.fingerprint,
            "0" if e.result_json is None else "1",
            e.result_json or "",
        ]

    def _write(self, script: Any, keys: list[str], args: list[str], claim: bool) -> bool:
        wanted = self.options.wait_replicas
        if not claim or wanted == 0:
            return bool(self._run(lambda: script(keys=keys, args=args)) == 1)
        # WAIT counts the replicas that have this connection's writes: the script and the WAIT
        # go down one connection (a pipeline), to the node of the entry's slot.
        node = (
            self._client.get_node_from_key(keys[0]).redis_connection
            if self._cluster
            else self._client
        )

        def once() -> list[Any]:
            pipe = node.pipeline(transaction=False)
            pipe.evalsha(script.sha, len(keys), *keys, *args)
            pipe.execute_command("WAIT", wanted, self.options.wait_timeout_ms)
            return list(pipe.execute(raise_on_error=False))

        got = self._run(once)
        if isinstance(got[0], redis.exceptions.NoScriptError):
            self._run(lambda: node.script_load(script.script))
            got = self._run(once)
        for r in got:
            if isinstance(r, Exception):
                raise StorageError(f"storage: {r}") from r
        done, acked = got
        if done == 1 and int(acked) < wanted:
            raise StorageError(
                f"storage: the claim was not replicated: {acked} of {wanted} replica(s) "
                f"acknowledged it within {self.options.wait_timeout_ms} ms (it is held on the "
                "primary; the tool was not called)"
            )
        return bool(done == 1)

    def insert(self, entry: Entry, *, claims: bool = False) -> bool:
        self._run(lambda: self._register(entry.scope))
        keys = self._write_keys(entry.scope, entry.key, entry.tool)
        return self._write(self._insert, keys, self._write_args(entry), claims)

    def update(
        self, expected_version: int, entry: Entry, *, history: bool = False, claims: bool = False
    ) -> bool:
        keys = self._write_keys(entry.scope, entry.key, entry.tool)
        args = [*self._write_args(entry), str(expected_version), "1" if history else "0"]
        return self._write(self._update, keys, args, claims)

    def delete(self, scope: str, key: str, expected_version: int) -> bool:
        # The tool names the approvals' set; it never changes for a key.
        tool = self._run(lambda: self._client.hget(self._entry_key(scope, key), "t"))
        if tool is None:
            return False
        keys = self._write_keys(scope, key, tool)
        args = [str(expected_version), key]
        return bool(self._run(lambda: self._delete(keys=keys, args=args)) == 1)

    # --- reads --------------------------------------------------------------------------------

    def get(self, scope: str, key: str) -> Entry | None:
        text = self._run(lambda: self._client.hget(self._entry_key(scope, key), "row"))
        return None if text is None else _decode(text)

    def recorded(self, scope: str, key: str) -> Recorded | None:
        """What a replay compares of the row (:class:`~oncely.store.Recorded`), if any."""
        got = self._run(lambda: self._client.hmget(self._entry_key(scope, key), "s", "f", "t", "r"))
        state, fingerprint, tool, result = got
        if state is None or fingerprint is None or tool is None:
            return None
        return Recorded(state, fingerprint, tool, result)

    def _rows(self, pairs: Iterable[tuple[str, str]]) -> builtins.list[Entry]:
        """The rows of ``(scope, key)`` pairs still present, in order (one round trip; on a
        cluster, redis-py's pipeline sends each node its part)."""
        names = [self._entry_key(s, k) for s, k in pairs]
        if not names:
            return []

        def read() -> builtins.list[Any]:
            pipe = self._client.pipeline(transaction=False)
            for n in names:
                pipe.hget(n, "row")
            return builtins.list(pipe.execute())

        return [_decode(t) for t in self._run(read) if t is not None]

    def _range(self, key: str, rev: bool, lo: str, hi: str, offset: int) -> Any:
        if rev:
            return self._client.zrevrangebyscore(
                key, hi, lo, start=offset, num=BATCH, withscores=True
            )
        return self._client.zrangebyscore(key, lo, hi, start=offset, num=BATCH, withscores=True)

    def list(self, scope: str | None, filter: ListFilter) -> builtins.list[Entry]:
        want = filter.limit
        found: builtins.list[Entry] = []
        if want <= 0:
            return found
        for s in self._run(lambda: self._scopes(scope)):
            # Newest first, every tie of the last one kept (the order then takes key ascending).
            key = self._scope_key(s, "upd")
            kept: builtins.list[Entry] = []
            offset = 0
            full = False
            while not full:
                batch = self._run(partial(self._range, key, True, "-inf", "+inf", offset))
                for e in self._rows((s, m) for m, _ in batch):
                    if len(kept) >= want and kept[-1].updated_at != e.updated_at:
                        full = True
                        break
                    if (filter.state is None or filter.state is e.state) and (
                        filter.tool is None or filter.tool == e.tool
                    ):
                        kept.append(e)
                if len(batch) < BATCH:
                    break
                offset += len(batch)
            found.extend(kept)
        found.sort(key=lambda e: (-e.updated_at, e.scope, e.key))
        return found[:want]

    def _walk(self, key: str, lo: str, hi: str, want: int) -> builtins.list[tuple[str, int]]:
        """The first ``want`` members of the sorted set ``key`` scored ``lo`` to ``hi``, in
        order, with their scores."""
        kept: builtins.list[tuple[str, int]] = []
        offset = 0
        while len(kept) < want:
            batch = self._run(partial(self._range, key, False, lo, hi, offset))
            kept.extend((m, _score(v)) for m, v in batch)
            if len(batch) < BATCH:
                break
            offset += len(batch)
        return kept[:want]

    def due(self, scope: str | None, now: int, limit: int) -> builtins.list[Entry]:
        order: builtins.list[tuple[int, str, str]] = []
        if limit <= 0:
            return []
        for s in self._run(lambda: self._scopes(scope)):
            got = self._walk(self._scope_key(s, "due"), "-inf", str(now), limit)
            order.extend((d, s, k) for k, d in got)
        order.sort()
        return self._rows((s, k) for _, s, k in order[:limit])

    def history(self, scope: str, key: str) -> builtins.list[HistoryRecord]:
        name = self._scope_key(scope, f"h:{key}")
        records = self._run(lambda: self._client.lrange(name, 0, -1))
        out: builtins.list[HistoryRecord] = []
        for r in records:
            try:
                row = json.loads(r)
                if not isinstance(row, builtins.list) or len(row) != 9:
                    raise ValueError("not an array of nine values")
            except ValueError as e:
                raise StorageError(
                    f"corrupt ledger row (a history record of ({scope}, {key}): {e})"
                ) from e
            out.append(history_from_row(scope, key, row))
        return out

    def close(self) -> None:
        self._client.close()
