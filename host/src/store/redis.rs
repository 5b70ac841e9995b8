//! Redis / Valkey backend (cargo feature `redis`): a ledger shared by many workers on a Redis
//! server, a primary with replicas, or a Redis Cluster. Opened by a `redis://` URL, or
//! `rediss://` (TLS) with the feature `redis-tls`.
//!
//! # Keys
//!
//! Every key of a scope carries the scope as its hash tag, `<prefix>:{<scope>}:…`, so that the
//! keys one write touches sit in one slot of a cluster. With the default prefix `oncely`:
//!
//! | key                          | type       | holds                                                     |
//! |------------------------------|------------|-----------------------------------------------------------|
//! | `oncely:{s}:e:<key>`         | hash       | `row` the row as JSON; `v` version, `s` state, `t` tool,   |
//! |                              |            | `f` fingerprint, `r` result (absent: none): a replay's read |
//! | `oncely:{s}:h:<key>`         | list       | the history, oldest first, one JSON record per element     |
//! | `oncely:{s}:due`             | sorted set | keys by `due_at` (only rows with one): sweeps and purges   |
//! | `oncely:{s}:upd`             | sorted set | every key by `updated_at`: `list`                          |
//! | `oncely:{s}:esc`             | sorted set | escalated keys by `in_doubt_since`: `waiting`              |
//! | `oncely:{s}:doubt`           | sorted set | in-doubt keys by `in_doubt_since`: `waiting`, `stats`      |
//! | `oncely:{s}:ask`             | sorted set | awaiting-approval keys by `updated_at`: `awaiting`         |
//! | `oncely:{s}:n`               | hash       | entries per state: `stats`                                 |
//! | `oncely:{s}:ap:<tool>`       | sorted set | keys whose history holds `approved`, by its latest time    |
//! | `oncely:scopes`              | set        | every scope that has had an entry: cross-scope queries     |
//!
//! The row's JSON object has the SQL schema's column names (`migrations/`), with the same
//! values; a history record is the SQL stores' `[version, at, state, attempt, owner,
//! reconcile_attempts, reason, resolved_by, settlement]`. The scope's tag is the scope with `%`
//! and `}` percent-encoded (and `%` for the empty scope), so any scope keeps its keys together.
//!
//! # Writes
//!
//! A claim (`insert`), a compare-and-set `update` and a `delete` are each one Lua script
//! (EVALSHA, loaded again when the server answers NOSCRIPT): the row, its history record, its
//! counts and every index are written by the same script, atomically. The scope is added to
//! `oncely:scopes` before its first insert in a process (an idempotent `SADD`, outside the
//! script: its key is in another slot); the set is never pruned.
//!
//! # Reads across scopes
//!
//! `list(None)`, `due(None)`, `stats`, `waiting` and `awaiting` read every scope of
//! `oncely:scopes`, each from its own indexes, and merge: one round trip per scope. On a
//! cluster each of these goes to the node of the scope's slot (the client routes by key).
//!
//! # Durability
//!
//! What a write that returned survives is the server's configuration: read at open
//! ([`RedisStore::durability`], logged). With `?wait_replicas=N` every write the core marks as
//! leaving a claim (`row-write.claims`: an insert or update that leaves the row `pending` for a
//! new attempt) is followed by `WAIT N timeout`; fewer acknowledgements fail
//! the write with [`StoreError::NotReplicated`] (the row was written on the primary: the claim
//! is held, the tool is not called, and the entry is settled as any interrupted claim is). On a
//! cluster the client sends `WAIT` to every primary and takes the smallest count, so every
//! primary needs that many replicas.

use super::{Found, HistoryRecord, HistoryRow, ListFilter, Recorded, Row, Stats, Store, WaitingCursor, WaitingPage};
use crate::error::StoreError;
use crate::wit::ledger::{Entry, EntryState};
use redis::aio::{ConnectionLike, ConnectionManager};
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, Pipeline, RedisFuture, Script, Value};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How a [`RedisStore`] is opened: read from the URL's query (`?prefix=…&wait_replicas=…&
/// wait_timeout_ms=…`; every other part of the URL is the `redis` crate's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisOptions {
    /// The first part of every key. Default `oncely`.
    pub prefix: String,
    /// Replicas that must acknowledge every claim before it returns (`WAIT`). Default 0: none.
    pub wait_replicas: u32,
    /// How long `WAIT` waits for them (ms). Default 1000.
    pub wait_timeout_ms: u64,
    /// For `rediss://` (feature `redis-tls`): a PEM file of the certificate authorities to trust
    /// instead of the system's (`?tls_ca=/path/ca.pem`).
    pub tls_ca: Option<String>,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions { prefix: "oncely".into(), wait_replicas: 0, wait_timeout_ms: 1000, tls_ca: None }
    }
}

/// The server's persistence as read at open, and what it means for the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Durability {
    /// `CONFIG GET appendonly` (`None`: CONFIG is not allowed on this server).
    pub appendonly: Option<String>,
    /// `CONFIG GET appendfsync`.
    pub appendfsync: Option<String>,
    /// Replicas every claim waits for ([`RedisOptions::wait_replicas`]).
    pub wait_replicas: u32,
    /// Whether the server is part of a cluster.
    pub cluster: bool,
}

impl Durability {
    /// Whether a claim that returned survives the server's crash (an fsync'd append-only file,
    /// `appendonly yes` with `appendfsync always`) or the loss of the primary (`wait_replicas`).
    pub fn claims_survive_a_crash(&self) -> bool {
        (self.appendonly.as_deref() == Some("yes") && self.appendfsync.as_deref() == Some("always")) || self.wait_replicas > 0
    }

    /// What the ledger guarantees under this configuration, in a sentence.
    pub fn guarantee(&self) -> String {
        let disk = match (self.appendonly.as_deref(), self.appendfsync.as_deref()) {
            (Some("yes"), Some("always")) => "every write is in the append-only file and fsync'd before it returns: a claim survives a crash or power loss of the server".to_string(),
            (Some("yes"), Some("everysec")) => "writes reach the append-only file at once but are fsync'd once a second: a crash of the server process loses nothing, a power loss or kernel crash may lose the last second of claims (an effect may then run twice)".to_string(),
            (Some("yes"), other) => format!("writes reach the append-only file, fsync'd when the OS decides (appendfsync {}): a crash of the server process loses nothing, a power loss may lose recent claims (an effect may then run twice)", other.unwrap_or("?")),
            (Some("no"), _) => "no append-only file (appendonly no): a restart of the server loses every write since its last snapshot, claims included (an effect may then run twice); set appendonly yes".to_string(),
            _ => "the server's persistence could not be read (CONFIG GET is not allowed): what a claim survives is what the server is configured for".to_string(),
        };
        let replicas = if self.wait_replicas > 0 {
            format!("; every claim waits for {} replica(s) to acknowledge it (WAIT), so it survives the loss of the primary once a replica that acknowledged it is promoted", self.wait_replicas)
        } else {
            "; claims do not wait for replicas: a failover to a replica that had not received a claim loses it".to_string()
        };
        format!("{disk}{replicas}")
    }
}

/// One connection to a single server (reconnecting) or to a cluster (routing by slot).
#[derive(Clone)]
enum Conn {
    Node(ConnectionManager),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Node(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }
    fn req_packed_commands<'a>(&'a mut self, cmd: &'a Pipeline, offset: usize, count: usize) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Node(c) => c.req_packed_commands(cmd, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(cmd, offset, count),
        }
    }
    fn get_db(&self) -> i64 {
        match self {
            Conn::Node(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// The scripts, shared by every store of the process (the `redis` crate keeps their SHA1s).
struct Scripts {
    insert: Script,
    update: Script,
    delete: Script,
}

/// The write scripts' common part: `KEYS` are the entry, its history, `due`, `upd`, `esc`,
/// `doubt`, `ask`, `n` and `ap:<tool>`; `ARGV` the version, state, tool, row JSON, history
/// record JSON, `due_at` (empty: none), `updated_at`, `in_doubt_since` (or `updated_at`), the
/// key, the fingerprint, whether there is a result (`1`), the result, then (for `update`) the
/// expected version and whether the history record is kept (`1`).
const INDEX_LUA: &str = include_str!("../../migrations/redis/index.lua");

const INSERT_LUA: &str = include_str!("../../migrations/redis/insert.lua");

const UPDATE_LUA: &str = include_str!("../../migrations/redis/update.lua");

/// `KEYS` as for the other scripts; `ARGV` the expected version and the key.
const DELETE_LUA: &str = include_str!("../../migrations/redis/delete.lua");

fn scripts() -> &'static Scripts {
    static S: std::sync::OnceLock<Scripts> = std::sync::OnceLock::new();
    S.get_or_init(|| Scripts {
        insert: Script::new(&format!("{INDEX_LUA}{INSERT_LUA}")),
        update: Script::new(&format!("{INDEX_LUA}{UPDATE_LUA}")),
        delete: Script::new(DELETE_LUA),
    })
}

/// A ledger in Redis or Valkey.
#[derive(Clone)]
pub struct RedisStore {
    conn: Conn,
    options: Arc<RedisOptions>,
    durability: Arc<Durability>,
    /// Scopes this process has added to the scope set.
    registered: Arc<Mutex<HashSet<String>>>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("options", &self.options).field("durability", &self.durability).finish_non_exhaustive()
    }
}

/// How many members a scan of a sorted set reads per round trip.
const BATCH: usize = 200;

impl RedisStore {
    /// Connect to `url` (`redis://[user:password@]host:port[/db][?prefix=…&wait_replicas=N&
    /// wait_timeout_ms=T]`). A server in cluster mode is used as a cluster (its other nodes
    /// found from it). Reads the server's persistence settings and logs what they guarantee.
    pub async fn connect(url: &str) -> Result<RedisStore, StoreError> {
        let (url, options) = parse_url(url)?;
        let client = client(&url, &options)?;
        let mut first = tokio::time::timeout(Duration::from_secs(5), client.get_multiplexed_async_connection())
            .await
            .map_err(|_| StoreError::Unavailable {
                waited: Duration::from_secs(5),
                cause: format!("connecting to {} did not finish", redact(&url)),
            })?
            .map_err(|e| StoreError::Unavailable { waited: Duration::ZERO, cause: e.to_string() })?;
        let info: String = redis::cmd("INFO").arg("cluster").query_async(&mut first).await?;
        let cluster = info.lines().any(|l| l.trim() == "cluster_enabled:1");
        let config = |name: &'static str| {
            let mut c = first.clone();
            async move {
                let v: redis::RedisResult<Vec<String>> = redis::cmd("CONFIG").arg("GET").arg(name).query_async(&mut c).await;
                v.ok().and_then(|v| v.get(1).cloned())
            }
        };
        let durability = Durability {
            appendonly: config("appendonly").await,
            appendfsync: config("appendfsync").await,
            wait_replicas: options.wait_replicas,
            cluster,
        };
        let conn = if cluster {
            #[allow(unused_mut)]
            let mut builder = redis::cluster::ClusterClientBuilder::new(vec![url.as_str()]);
            #[cfg(feature = "redis-tls")]
            if let Some(certs) = certificates(&options)? {
                builder = builder.certs(certs);
            }
            Conn::Cluster(builder.response_timeout(response_timeout(&options)).build()?.get_async_connection().await?)
        } else {
            let config = redis::aio::ConnectionManagerConfig::new().set_response_timeout(Some(response_timeout(&options)));
            Conn::Node(ConnectionManager::new_with_config(client, config).await?)
        };
        if durability.claims_survive_a_crash() {
            tracing::info!(target: "oncely", "redis ledger at {}: {}", redact(&url), durability.guarantee());
        } else {
            tracing::warn!(target: "oncely", "redis ledger at {}: {}", redact(&url), durability.guarantee());
        }
        Ok(RedisStore { conn, options: Arc::new(options), durability: Arc::new(durability), registered: Arc::default() })
    }

    /// The server's persistence as read at open, and what the ledger guarantees under it
    /// ([`Durability::guarantee`]).
    pub fn durability(&self) -> &Durability {
        &self.durability
    }

    /// The options the store was opened with.
    pub fn options(&self) -> &RedisOptions {
        &self.options
    }

    fn conn(&self) -> Conn {
        self.conn.clone()
    }

    fn scope_key(&self, scope: &str, what: &str) -> String {
        format!("{}:{{{}}}:{what}", self.options.prefix, tag(scope))
    }

    fn entry_key(&self, scope: &str, key: &str) -> String {
        self.scope_key(scope, &format!("e:{key}"))
    }

    fn scopes_key(&self) -> String {
        format!("{}:scopes", self.options.prefix)
    }

    /// The `KEYS` of a write of `(scope, key)` of `tool`.
    fn write_keys(&self, scope: &str, key: &str, tool: &str) -> [String; 9] {
        [
            self.entry_key(scope, key),
            self.scope_key(scope, &format!("h:{key}")),
            self.scope_key(scope, "due"),
            self.scope_key(scope, "upd"),
            self.scope_key(scope, "esc"),
            self.scope_key(scope, "doubt"),
            self.scope_key(scope, "ask"),
            self.scope_key(scope, "n"),
            self.scope_key(scope, &format!("ap:{tool}")),
        ]
    }

    /// Every scope that has had an entry, or just `scope`.
    async fn scopes(&self, scope: Option<&str>) -> Result<Vec<String>, StoreError> {
        match scope {
            Some(s) => Ok(vec![s.to_string()]),
            None => {
                let mut v: Vec<String> = redis::cmd("SMEMBERS").arg(self.scopes_key()).query_async(&mut self.conn()).await?;
                v.sort();
                Ok(v)
            }
        }
    }

    async fn register(&self, scope: &str) -> Result<(), StoreError> {
        if self.registered.lock().expect("scope set").contains(scope) {
            return Ok(());
        }
        let _: i64 = redis::cmd("SADD").arg(self.scopes_key()).arg(scope).query_async(&mut self.conn()).await?;
        self.registered.lock().expect("scope set").insert(scope.to_string());
        Ok(())
    }

    /// The rows of `keys` of `scope` (those still present), in order.
    async fn rows(&self, scope: &str, keys: &[String]) -> Result<Vec<Entry>, StoreError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for k in keys {
            pipe.cmd("HGET").arg(self.entry_key(scope, k)).arg("row");
        }
        let got: Vec<Option<String>> = pipe.query_async(&mut self.conn()).await?;
        got.into_iter().flatten().map(|j| decode(&j)).collect()
    }

    /// Walk the sorted set `key` in its order (score, then member; descending with `rev`) from
    /// score `from` to `to`, `BATCH` members a round trip, keeping those `keep` accepts, until
    /// `want` are kept or the set ends.
    async fn walk(
        &self,
        key: &str,
        rev: bool,
        from: String,
        to: String,
        want: usize,
        mut keep: impl FnMut(&str, u64) -> bool,
    ) -> Result<Vec<(String, u64)>, StoreError> {
        let mut kept: Vec<(String, u64)> = Vec::new();
        if want == 0 {
            return Ok(kept);
        }
        let mut offset = 0;
        loop {
            let mut cmd = redis::cmd(if rev { "ZREVRANGEBYSCORE" } else { "ZRANGEBYSCORE" });
            cmd.arg(key).arg(&from).arg(&to).arg("WITHSCORES").arg("LIMIT").arg(offset).arg(BATCH);
            let batch: Vec<(String, f64)> = cmd.query_async(&mut self.conn()).await?;
            let n = batch.len();
            for (member, score) in batch {
                let score = score as u64;
                if keep(&member, score) {
                    kept.push((member, score));
                    if kept.len() >= want {
                        return Ok(kept);
                    }
                }
            }
            if n < BATCH {
                return Ok(kept);
            }
            offset += n;
        }
    }

    /// One page of an order `(score, scope, key)` over the sorted set `what` of every scope
    /// (in doubt by `hi` at most), after `after`.
    async fn page(&self, what: &str, hi: Option<u64>, page: &WaitingPage) -> Result<Vec<(u64, String, String)>, StoreError> {
        let want = page.limit as usize;
        let mut all: Vec<(u64, String, String)> = Vec::new();
        let hi = hi.map_or("+inf".to_string(), |h| h.to_string());
        for scope in self.scopes(None).await? {
            let after = page.after.clone();
            let me = scope.clone();
            // Whether (score, scope, key) comes after the cursor in the page's direction.
            let past = move |key: &str, score: u64| match &after {
                None => true,
                Some(WaitingCursor { since, scope: s, key: k }) => {
                    let o = (score, me.as_str(), key).cmp(&(*since, s.as_str(), k.as_str()));
                    if page.newest_first {
                        o == Ordering::Less
                    } else {
                        o == Ordering::Greater
                    }
                }
            };
            let (from, to) = match (&page.after, page.newest_first) {
                (None, false) => ("-inf".to_string(), hi.clone()),
                (Some(a), false) => (a.since.to_string(), hi.clone()),
                (None, true) => (hi.clone(), "-inf".to_string()),
                (Some(a), true) => {
                    let top = hi.parse::<u64>().map_or(a.since, |h| h.min(a.since));
                    (top.to_string(), "-inf".to_string())
                }
            };
            let got = self.walk(&self.scope_key(&scope, what), page.newest_first, from, to, want, past).await?;
            all.extend(got.into_iter().map(|(k, s)| (s, scope.clone(), k)));
        }
        all.sort();
        if page.newest_first {
            all.reverse();
        }
        all.truncate(want);
        Ok(all)
    }

    async fn sum(&self, cmd: impl Fn(&str) -> Cmd) -> Result<u64, StoreError> {
        let scopes = self.scopes(None).await?;
        if scopes.is_empty() {
            return Ok(0);
        }
        if let Conn::Cluster(_) = self.conn {
            // A cluster refuses a pipeline whose keys are in several slots: one scope at a time.
            let mut total = 0;
            for s in &scopes {
                let n: u64 = cmd(s).query_async(&mut self.conn()).await?;
                total += n;
            }
            return Ok(total);
        }
        let mut pipe = redis::pipe();
        for s in &scopes {
            pipe.add_command(cmd(s));
        }
        let n: Vec<u64> = pipe.query_async(&mut self.conn()).await?;
        Ok(n.into_iter().sum())
    }

    /// After a claim: `WAIT` for the configured replicas.
    async fn replicated(&self) -> Result<(), StoreError> {
        let wanted = self.options.wait_replicas;
        if wanted == 0 {
            return Ok(());
        }
        let acked: i64 = redis::cmd("WAIT").arg(wanted).arg(self.options.wait_timeout_ms).query_async(&mut self.conn()).await?;
        let acked = u32::try_from(acked).unwrap_or(0);
        if acked < wanted {
            return Err(StoreError::NotReplicated { wanted, acked, timeout_ms: self.options.wait_timeout_ms });
        }
        Ok(())
    }

    /// The rows of a page, in the page's order: one round trip on a single server, one per scope
    /// on a cluster (a pipeline's keys must share a slot there).
    async fn rows_of(&self, order: Vec<(u64, String, String)>) -> Result<Vec<Entry>, StoreError> {
        let names: Vec<String> = order.iter().map(|(_, scope, key)| self.entry_key(scope, key)).collect();
        let mut json: Vec<Option<String>> = Vec::with_capacity(names.len());
        if let Conn::Cluster(_) = self.conn {
            let mut by_scope: std::collections::BTreeMap<&str, Vec<usize>> = std::collections::BTreeMap::new();
            for (i, (_, scope, _)) in order.iter().enumerate() {
                by_scope.entry(scope.as_str()).or_default().push(i);
            }
            json.resize(names.len(), None);
            for at in by_scope.values() {
                let mut pipe = redis::pipe();
                for &i in at {
                    pipe.cmd("HGET").arg(&names[i]).arg("row");
                }
                let got: Vec<Option<String>> = pipe.query_async(&mut self.conn()).await?;
                for (&i, j) in at.iter().zip(got) {
                    json[i] = j;
                }
            }
        } else if !names.is_empty() {
            let mut pipe = redis::pipe();
            for n in &names {
                pipe.cmd("HGET").arg(n).arg("row");
            }
            json = pipe.query_async(&mut self.conn()).await?;
        }
        json.into_iter().flatten().map(|j| decode(&j)).collect()
    }

    fn write_args(&self, e: &Entry) -> Result<Vec<String>, StoreError> {
        let row = Row::from_entry(e);
        let record = serde_json::json!([
            row.version,
            row.updated_at,
            row.state,
            row.attempt,
            row.owner,
            row.reconcile_attempts,
            row.reason,
            row.resolved_by,
            row.settlement
        ]);
        Ok(vec![
            e.version.to_string(),
            row.state.clone(),
            e.tool.clone(),
            serde_json::to_string(&row).map_err(|err| StoreError::Other(format!("encoding a row: {err}")))?,
            record.to_string(),
            e.due_at.map_or(String::new(), |d| d.to_string()),
            e.updated_at.to_string(),
            e.in_doubt_since.unwrap_or(e.updated_at).to_string(),
            e.key.clone(),
            e.fingerprint.clone(),
            if e.result_json.is_some() { "1" } else { "0" }.to_string(),
            e.result_json.clone().unwrap_or_default(),
        ])
    }
}

/// How long a command may wait for its answer: 5 s, and a `WAIT`'s timeout more (the `redis`
/// crate's default, 500 ms, would cut a `WAIT` short).
fn response_timeout(options: &RedisOptions) -> Duration {
    Duration::from_millis(5000 + options.wait_timeout_ms)
}

/// The client of `url`: with `tls_ca`'s authorities when given (feature `redis-tls`).
fn client(url: &str, options: &RedisOptions) -> Result<redis::Client, StoreError> {
    #[cfg(feature = "redis-tls")]
    if let Some(certs) = certificates(options)? {
        return Ok(redis::Client::build_with_tls(url, certs)?);
    }
    if options.tls_ca.is_some() && !cfg!(feature = "redis-tls") {
        return Err(StoreError::Location(format!("{}: tls_ca needs oncely's cargo feature `redis-tls`", redact(url))));
    }
    Ok(redis::Client::open(url)?)
}

/// The authorities of `tls_ca`, if given.
#[cfg(feature = "redis-tls")]
fn certificates(options: &RedisOptions) -> Result<Option<redis::TlsCertificates>, StoreError> {
    let Some(path) = &options.tls_ca else { return Ok(None) };
    let pem = std::fs::read(path).map_err(|e| StoreError::Other(format!("reading tls_ca {path}: {e}")))?;
    Ok(Some(redis::TlsCertificates { client_tls: None, root_cert: Some(pem) }))
}

fn decode(json: &str) -> Result<Entry, StoreError> {
    let row: Row = serde_json::from_str(json).map_err(|e| StoreError::Corrupt(format!("a row's JSON: {e}")))?;
    row.into_entry()
}

/// The hash tag of `scope`: itself with `%` and `}` percent-encoded; `%` for the empty scope.
fn tag(scope: &str) -> String {
    if scope.is_empty() {
        return "%".into();
    }
    scope.replace('%', "%25").replace('}', "%7D")
}

/// The URL without a password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://…@{}", &url[..s], &url[at + 1..]),
        _ => url.to_string(),
    }
}

/// The URL with oncely's own query parameters taken out, and the options they give.
fn parse_url(url: &str) -> Result<(String, RedisOptions), StoreError> {
    let mut options = RedisOptions::default();
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let bad = || StoreError::Location(format!("{}: {k}={v} is not valid", redact(url)));
        match k {
            "prefix" if !v.is_empty() && !v.contains(['{', '}']) => options.prefix = v.to_string(),
            "prefix" => return Err(bad()),
            "wait_replicas" => options.wait_replicas = v.parse().map_err(|_| bad())?,
            "wait_timeout_ms" => options.wait_timeout_ms = v.parse().map_err(|_| bad())?,
            "tls_ca" if !v.is_empty() => options.tls_ca = Some(v.to_string()),
            _ => rest.push(pair),
        }
    }
    let url = if rest.is_empty() { base.to_string() } else { format!("{base}?{}", rest.join("&")) };
    Ok((url, options))
}

impl Store for RedisStore {
    async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, StoreError> {
        let json: Option<String> = redis::cmd("HGET").arg(self.entry_key(scope, key)).arg("row").query_async(&mut self.conn()).await?;
        json.as_deref().map(decode).transpose()
    }

    async fn recorded(&self, scope: &str, key: &str) -> Result<Option<Found>, StoreError> {
        let (state, fingerprint, tool, result_json): (Option<String>, Option<String>, Option<String>, Option<String>) =
            redis::cmd("HMGET").arg(self.entry_key(scope, key)).arg(&["s", "f", "t", "r"]).query_async(&mut self.conn()).await?;
        let (Some(state), Some(fingerprint), Some(tool)) = (state, fingerprint, tool) else { return Ok(None) };
        let state = super::parse_state(&state).ok_or_else(|| StoreError::Corrupt(format!("state of ({scope}, {key})")))?;
        Ok(Some(Found::Recorded(Recorded { state, fingerprint, tool, result_json })))
    }

    async fn insert(&self, entry: &Entry, claims: bool) -> Result<bool, StoreError> {
        self.register(&entry.scope).await?;
        let keys = self.write_keys(&entry.scope, &entry.key, &entry.tool);
        let mut inv = scripts().insert.prepare_invoke();
        for k in &keys {
            inv.key(k);
        }
        for a in self.write_args(entry)? {
            inv.arg(a);
        }
        let done: i64 = inv.invoke_async(&mut self.conn()).await?;
        if done == 1 && claims {
            self.replicated().await?;
        }
        Ok(done == 1)
    }

    async fn update(&self, expected_version: u64, entry: &Entry, history: bool, claims: bool) -> Result<bool, StoreError> {
        let keys = self.write_keys(&entry.scope, &entry.key, &entry.tool);
        let mut inv = scripts().update.prepare_invoke();
        for k in &keys {
            inv.key(k);
        }
        for a in self.write_args(entry)? {
            inv.arg(a);
        }
        inv.arg(expected_version.to_string()).arg(if history { "1" } else { "0" });
        let done: i64 = inv.invoke_async(&mut self.conn()).await?;
        if done == 1 && claims {
            self.replicated().await?;
        }
        Ok(done == 1)
    }

    async fn delete(&self, scope: &str, key: &str, expected_version: u64) -> Result<bool, StoreError> {
        // The tool names the approvals' set; it never changes for a key.
        let tool: Option<String> = redis::cmd("HGET").arg(self.entry_key(scope, key)).arg("t").query_async(&mut self.conn()).await?;
        let Some(tool) = tool else { return Ok(false) };
        let mut inv = scripts().delete.prepare_invoke();
        for k in &self.write_keys(scope, key, &tool) {
            inv.key(k);
        }
        inv.arg(expected_version.to_string()).arg(key);
        let done: i64 = inv.invoke_async(&mut self.conn()).await?;
        Ok(done == 1)
    }

    async fn list(&self, scope: Option<&str>, filter: &ListFilter) -> Result<Vec<Entry>, StoreError> {
        let want = filter.limit as usize;
        let mut all: Vec<Entry> = Vec::new();
        if want == 0 {
            return Ok(all);
        }
        let from = "+inf".to_string();
        let to = filter.since.map_or("-inf".to_string(), |s| s.to_string());
        for s in self.scopes(scope).await? {
            // Newest first, every tie of the last one kept (the order then takes key ascending).
            let key = self.scope_key(&s, "upd");
            let mut kept: Vec<Entry> = Vec::new();
            let mut offset = 0;
            'scan: loop {
                let batch: Vec<(String, f64)> = redis::cmd("ZREVRANGEBYSCORE")
                    .arg(&key)
                    .arg(&from)
                    .arg(&to)
                    .arg("WITHSCORES")
                    .arg("LIMIT")
                    .arg(offset)
                    .arg(BATCH)
                    .query_async(&mut self.conn())
                    .await?;
                let n = batch.len();
                let keys: Vec<String> = batch.into_iter().map(|(k, _)| k).collect();
                for e in self.rows(&s, &keys).await? {
                    if kept.len() >= want && kept.last().is_some_and(|l| l.updated_at != e.updated_at) {
                        break 'scan;
                    }
                    if filter.state.is_none_or(|st| st == e.state) && filter.tool.as_deref().is_none_or(|t| t == e.tool) {
                        kept.push(e);
                    }
                }
                if n < BATCH {
                    break;
                }
                offset += n;
            }
            all.extend(kept);
        }
        all.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| (&a.scope, &a.key).cmp(&(&b.scope, &b.key))));
        all.truncate(want);
        Ok(all)
    }

    async fn due(&self, scope: Option<&str>, now: u64, limit: u32) -> Result<Vec<Entry>, StoreError> {
        let want = limit as usize;
        let mut order: Vec<(u64, String, String)> = Vec::new();
        for s in self.scopes(scope).await? {
            let got = self.walk(&self.scope_key(&s, "due"), false, "-inf".into(), now.to_string(), want, |_, _| true).await?;
            order.extend(got.into_iter().map(|(k, d)| (d, s.clone(), k)));
        }
        order.sort();
        order.truncate(want);
        self.rows_of(order).await
    }

    async fn history(&self, scope: &str, key: &str) -> Result<Vec<HistoryRecord>, StoreError> {
        let records: Vec<String> =
            redis::cmd("LRANGE").arg(self.scope_key(scope, &format!("h:{key}"))).arg(0).arg(-1).query_async(&mut self.conn()).await?;
        records
            .iter()
            .map(|r| {
                let corrupt = |e: serde_json::Error| StoreError::Corrupt(format!("a history record of ({scope}, {key}): {e}"));
                #[allow(clippy::type_complexity)]
                let (version, at, state, attempt, owner, reconcile_attempts, reason, resolved_by, settlement): (
                    i64,
                    i64,
                    String,
                    i64,
                    String,
                    i64,
                    Option<String>,
                    Option<String>,
                    Option<String>,
                ) = serde_json::from_str(r).map_err(corrupt)?;
                HistoryRow { version, at, state, attempt, owner, reconcile_attempts, reason, resolved_by, settlement }.into_record()
            })
            .collect()
    }

    async fn stats(&self) -> Result<Stats, StoreError> {
        let mut rows: Vec<(String, i64, Option<i64>, Option<i64>)> = Vec::new();
        for s in self.scopes(None).await? {
            let counts: Vec<(String, i64)> = redis::cmd("HGETALL").arg(self.scope_key(&s, "n")).query_async(&mut self.conn()).await?;
            let first = |what: &'static str| {
                let key = self.scope_key(&s, what);
                let mut c = self.conn();
                async move {
                    let v: Vec<(String, f64)> = redis::cmd("ZRANGE").arg(key).arg(0).arg(0).arg("WITHSCORES").query_async(&mut c).await?;
                    Ok::<_, StoreError>(v.first().map(|(_, t)| *t as i64))
                }
            };
            let (doubt, ask) = (first("doubt").await?, first("ask").await?);
            for (state, n) in counts.into_iter().filter(|(_, n)| *n != 0) {
                let oldest = if state == "in-doubt" { doubt } else { None };
                let asked = if state == "awaiting-approval" { ask } else { None };
                rows.push((state, n, oldest, asked));
            }
        }
        // One row per state, as the SQL stores' GROUP BY gives.
        let mut merged: Vec<(String, i64, Option<i64>, Option<i64>)> = Vec::new();
        for (state, n, oldest, asked) in rows {
            match merged.iter_mut().find(|m| m.0 == state) {
                Some(m) => {
                    m.1 += n;
                    m.2 = min_of(m.2, oldest);
                    m.3 = min_of(m.3, asked);
                }
                None => merged.push((state, n, oldest, asked)),
            }
        }
        super::stats_of(merged)
    }

    async fn waiting(&self, in_doubt_by: Option<u64>, page: &WaitingPage) -> Result<Vec<Entry>, StoreError> {
        let mut order = self.page("esc", None, page).await?;
        if let Some(by) = in_doubt_by {
            order.extend(self.page("doubt", Some(by), page).await?);
        }
        order.sort();
        if page.newest_first {
            order.reverse();
        }
        order.truncate(page.limit as usize);
        self.rows_of(order).await
    }

    async fn waiting_count(&self, in_doubt_by: Option<u64>) -> Result<(u64, u64), StoreError> {
        let escalated = self.sum(|s| redis::cmd("ZCARD").arg(self.scope_key(s, "esc")).clone()).await?;
        let in_doubt = match in_doubt_by {
            Some(by) => self.sum(|s| redis::cmd("ZCOUNT").arg(self.scope_key(s, "doubt")).arg("-inf").arg(by).clone()).await?,
            None => 0,
        };
        Ok((escalated, in_doubt))
    }

    async fn awaiting(&self, page: &WaitingPage) -> Result<Vec<Entry>, StoreError> {
        let order = self.page("ask", None, page).await?;
        self.rows_of(order).await
    }

    async fn awaiting_count(&self) -> Result<u64, StoreError> {
        self.sum(|s| redis::cmd("ZCARD").arg(self.scope_key(s, "ask")).clone()).await
    }

    async fn last_approved(&self, scope: &str, tool: &str, key: &str) -> Result<Option<Entry>, StoreError> {
        // Newest approval first; among equal times the smallest key; never `key`, never a
        // denied entry (its row read to know).
        let set = self.scope_key(scope, &format!("ap:{tool}"));
        let mut offset = 0;
        let mut best: Option<(u64, Entry)> = None;
        loop {
            let batch: Vec<(String, f64)> = redis::cmd("ZREVRANGEBYSCORE")
                .arg(&set)
                .arg("+inf")
                .arg("-inf")
                .arg("WITHSCORES")
                .arg("LIMIT")
                .arg(offset)
                .arg(BATCH)
                .query_async(&mut self.conn())
                .await?;
            let n = batch.len();
            for (member, at) in batch {
                let at = at as u64;
                if best.as_ref().is_some_and(|(t, _)| *t != at) {
                    return Ok(best.map(|(_, e)| e));
                }
                if member == key {
                    continue;
                }
                let Some(e) = self.get(scope, &member).await? else { continue };
                if e.state == EntryState::Denied || e.tool != tool {
                    continue;
                }
                if best.as_ref().is_none_or(|(_, b)| e.key < b.key) {
                    best = Some((at, e));
                }
            }
            if n < BATCH {
                return Ok(best.map(|(_, e)| e));
            }
            offset += n;
        }
    }
}

fn min_of(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_is_one_hash_tag_whatever_it_holds() {
        assert_eq!(tag("acme"), "acme");
        assert_eq!(tag(""), "%");
        assert_eq!(tag("a}b{c%"), "a%7Db{c%25");
    }

    #[test]
    fn oncely_options_are_taken_out_of_the_url() {
        let (url, o) = parse_url("redis://127.0.0.1:6390/2?prefix=t1&wait_replicas=1&wait_timeout_ms=250&protocol=resp3").unwrap();
        assert_eq!(url, "redis://127.0.0.1:6390/2?protocol=resp3");
        assert_eq!(o, RedisOptions { prefix: "t1".into(), wait_replicas: 1, wait_timeout_ms: 250, tls_ca: None });
        assert!(parse_url("redis://h?wait_replicas=x").is_err());
        assert!(parse_url("redis://h?prefix={x}").is_err());
        assert_eq!(redact("redis://u:secret@h:1/0"), "redis://…@h:1/0");
    }
}
