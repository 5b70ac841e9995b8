//! PostgreSQL backend: one ledger shared by many workers on many machines. The table lives in
//! its own schema (`oncely.effects`). A claim is one `INSERT … ON CONFLICT DO NOTHING`, every
//! later write one `UPDATE … WHERE version = $n`; PostgreSQL's row locks make both atomic at
//! the default isolation level. Commits are as durable as the server is configured to make them.
//!
//! sqlx's migration bookkeeping lives in the same schema, `oncely._sqlx_migrations`, never in
//! `public._sqlx_migrations`: that is where an application's own sqlx migrations are recorded,
//! and two migrators sharing one table each refuse the other's rows ("previously applied but
//! missing"). The Python and JavaScript hosts use the same table, so any of them may open a
//! ledger first.
//!
//! The server may go away (a restart, a failover, a network cut). A call in flight then fails
//! with the driver's error (`StoreError::Database`: the connection was terminated or reset).
//! Pooled connections are tested before use and replaced when the server dropped them, and a
//! call waits at most [`PostgresOptions::acquire_timeout`] (5 s by default) for a connection
//! while the server is down or restarting; past it, the call fails with
//! `StoreError::Unavailable`, which says why no connection could be made (connection refused,
//! the server is starting up, …). Opening a store connects once outside the pool first, so a
//! server that refuses is reported at once, with its cause. The store itself never breaks: once
//! the server is back, the next call connects again (`host/tests/pg_restart.rs`).
//!
//! A URL may name several servers, as libpq writes it:
//! `postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write` (sqlx reads one host
//! only, so this store does the rest). Opening tries the hosts in turn and keeps the first one
//! that `target_session_attrs` accepts (`any`, the default: the first that answers;
//! `read-write`: `SHOW transaction_read_only` is `off`; `primary`: not `pg_is_in_recovery()`);
//! every new connection is checked the same way, and when the kept server stops giving
//! connections (it died, or came back as a replica), the next call looks for another one in the
//! same order. That is how a worker follows a failover to the promoted replica
//! (`host/tests/pg_failover.rs`).

use super::{impl_store, Statements};
use crate::error::StoreError;
use crate::wit::ledger::Entry;
use sqlx::migrate::Migrator;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Connection, PgConnection, Postgres};
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a [`PostgresStore`] connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostgresOptions {
    /// Connections in the pool. Default 16.
    pub max_connections: u32,
    /// How long a call waits for a connection (the server down or restarting, or every pooled
    /// connection busy) before it fails with `StoreError::Unavailable`. Default 5 s.
    pub acquire_timeout: Duration,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions { max_connections: 16, acquire_timeout: Duration::from_secs(5) }
    }
}

/// How long finding out why no connection could be made may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// A ledger in a PostgreSQL database.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    pool: PgPool,
    sql: Arc<Statements>,
    /// The servers the URL names, when it names several or asks for a kind of session.
    targets: Option<Arc<Targets>>,
}

/// What `target_session_attrs` asks of a server (libpq's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SessionAttrs {
    Any,
    ReadWrite,
    Primary,
}

/// The servers of a multi-host URL, in its order, and what a session must be.
#[derive(Debug)]
struct Targets {
    hosts: Vec<(String, PgConnectOptions)>,
    attrs: SessionAttrs,
}

/// How long the pool is given to hand out a connection before the store looks for another of
/// the URL's servers (the kept one may be dead: sqlx keeps retrying a refused host).
const SWITCH_AFTER: Duration = Duration::from_millis(500);

/// Split a libpq multi-host URL (`postgres://u@h1:p1,h2:p2/db?…`) into one URL per host, and read
/// `target_session_attrs` (taken out of the query: sqlx does not know it). `None` for a URL with
/// one host and no such parameter: sqlx reads it as it is.
fn split_hosts(url: &str) -> Result<Option<Targets>, StoreError> {
    let bad = |why: &str| StoreError::Location(format!("{}: {why}", redact(url)));
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut attrs = None;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("target_session_attrs", v)) => {
                attrs = Some(match v {
                    "any" => SessionAttrs::Any,
                    "read-write" => SessionAttrs::ReadWrite,
                    "primary" => SessionAttrs::Primary,
                    _ => return Err(bad(&format!("target_session_attrs={v} is not supported (any, read-write or primary)"))),
                })
            }
            _ => rest.push(pair),
        }
    }
    let scheme_end = base.find("://").ok_or_else(|| bad("not a URL"))? + 3;
    let authority_end = base[scheme_end..].find('/').map_or(base.len(), |i| scheme_end + i);
    let authority = &base[scheme_end..authority_end];
    let (userinfo, hostlist) = match authority.rfind('@') {
        Some(at) => (&authority[..=at], &authority[at + 1..]),
        None => ("", authority),
    };
    if !hostlist.contains(',') && attrs.is_none() {
        return Ok(None);
    }
    let query = if rest.is_empty() { String::new() } else { format!("?{}", rest.join("&")) };
    let mut hosts = Vec::new();
    for host in hostlist.split(',') {
        if host.is_empty() {
            return Err(bad("an empty host in the host list"));
        }
        let one = format!("{}{userinfo}{host}{}{query}", &base[..scheme_end], &base[authority_end..]);
        hosts.push((host.to_string(), PgConnectOptions::from_str(&one)?));
    }
    Ok(Some(Targets { hosts, attrs: attrs.unwrap_or(SessionAttrs::Any) }))
}

/// The URL without its password (for messages).
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://…@{}", &url[..s], &url[at + 1..]),
        _ => url.to_string(),
    }
}

/// Why a connected server is not what `attrs` asks for, if it is not.
async fn refuses(conn: &mut PgConnection, attrs: SessionAttrs) -> Result<Option<&'static str>, sqlx::Error> {
    Ok(match attrs {
        SessionAttrs::Any => None,
        SessionAttrs::ReadWrite => {
            let ro: String = sqlx::query_scalar("SHOW transaction_read_only").fetch_one(&mut *conn).await?;
            (ro == "on").then_some("read-only (transaction_read_only is on)")
        }
        SessionAttrs::Primary => {
            let standby: bool = sqlx::query_scalar("SELECT pg_is_in_recovery()").fetch_one(&mut *conn).await?;
            standby.then_some("a standby (pg_is_in_recovery())")
        }
    })
}

impl Targets {
    /// The first server, in the URL's order, that answers within `timeout` and is what the
    /// session attributes ask; else `Unavailable` with what each one said.
    async fn find(&self, timeout: Duration) -> Result<PgConnectOptions, StoreError> {
        let started = Instant::now();
        let mut said = Vec::new();
        for (host, options) in &self.hosts {
            let why = match tokio::time::timeout(timeout, PgConnection::connect_with(options)).await {
                Err(_) => "connecting did not finish (unreachable?)".to_string(),
                Ok(Err(e)) => e.to_string(),
                Ok(Ok(mut c)) => {
                    let why = refuses(&mut c, self.attrs).await;
                    drop(c.close().await);
                    match why {
                        Ok(None) => return Ok(options.clone()),
                        Ok(Some(why)) => why.to_string(),
                        Err(e) => e.to_string(),
                    }
                }
            };
            said.push(format!("{host}: {why}"));
        }
        Err(StoreError::Unavailable { waited: started.elapsed(), cause: format!("no server of the URL would do: {}", said.join("; ")) })
    }
}

impl PostgresStore {
    /// The schema that holds the ledger and its migration bookkeeping.
    pub const SCHEMA: &'static str = "oncely";
    /// Where applied migrations are recorded (sqlx's table layout and rows).
    pub const MIGRATIONS_TABLE: &'static str = "oncely._sqlx_migrations";

    /// The migrator: this crate's PostgreSQL migrations, recorded in [`Self::MIGRATIONS_TABLE`].
    /// It creates [`Self::SCHEMA`] first (the table lives in it), after taking sqlx's advisory
    /// lock, so concurrent openers, in any host language, still run one at a time.
    pub fn migrator() -> Migrator {
        let mut m = sqlx::migrate!("migrations/postgres");
        m.create_schema(Self::SCHEMA);
        m.dangerous_set_table_name(Self::MIGRATIONS_TABLE);
        m
    }

    /// Connect to `url` and migrate (sqlx holds an advisory lock, so concurrent openers are safe),
    /// with the default [`PostgresOptions`].
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        Self::connect_with(url, &PostgresOptions::default()).await
    }

    /// Connect to `url` with `options` and migrate.
    pub async fn connect_with(url: &str, options: &PostgresOptions) -> Result<PostgresStore, StoreError> {
        let targets = split_hosts(url)?;
        let connect = match &targets {
            // Several servers: the first one that will do (each is tried once).
            Some(t) => t.find(options.acquire_timeout).await?,
            None => PgConnectOptions::from_str(url)?,
        };
        // A first connection, outside the pool, so that a server that cannot be reached (refused,
        // a wrong password, no such database) is reported at once with its cause, not after the
        // acquire timeout.
        let started = std::time::Instant::now();
        match tokio::time::timeout(options.acquire_timeout, PgConnection::connect_with(&connect)).await {
            Ok(Ok(c)) => drop(c.close().await),
            Ok(Err(e)) => return Err(StoreError::Unavailable { waited: started.elapsed(), cause: e.to_string() }),
            Err(_) => {
                let cause = "connecting to the server did not finish (unreachable?)".to_string();
                return Err(StoreError::Unavailable { waited: options.acquire_timeout, cause });
            }
        }
        let mut pool = PgPoolOptions::new()
            .max_connections(options.max_connections)
            .acquire_timeout(options.acquire_timeout)
            // Ping an idle connection before handing it out: one the server dropped (a restart,
            // an idle timeout) is replaced instead of failing the call (sqlx's default, relied on).
            .test_before_acquire(true);
        if let Some(attrs) = targets.as_ref().map(|t| t.attrs).filter(|a| *a != SessionAttrs::Any) {
            // A new connection to a server that is no longer what the URL asks (a primary that
            // came back as a replica) is refused; `conn` then looks for another server.
            pool = pool.after_connect(move |conn, _| {
                Box::pin(async move {
                    match refuses(conn, attrs).await? {
                        Some(why) => Err(sqlx::Error::Protocol(format!("the server is {why}"))),
                        None => Ok(()),
                    }
                })
            });
        }
        let pool = pool.connect_lazy_with(connect);
        let store =
            PostgresStore { pool, sql: Arc::new(Statements::new("oncely.effects", "oncely.history", '$')), targets: targets.map(Arc::new) };
        Self::migrator().run(&store.pool).await?;
        Ok(store)
    }

    /// A pooled connection; when none comes within the acquire timeout, an error that says why.
    pub(crate) async fn conn(&self) -> Result<PoolConnection<Postgres>, StoreError> {
        if let Some(targets) = self.targets.as_ref().filter(|t| t.hosts.len() > 1) {
            // The kept server gets a moment; past it, the first server of the URL that will do
            // is kept instead (it may be the same one) and the pool waits for it.
            let timeout = SWITCH_AFTER.min(self.pool.options().get_acquire_timeout());
            if let Ok(Ok(c)) = tokio::time::timeout(timeout, self.pool.acquire()).await {
                return Ok(c);
            }
            let found = targets.find(PROBE_TIMEOUT).await?;
            self.pool.set_connect_options(found);
        }
        match self.pool.acquire().await {
            Err(sqlx::Error::PoolTimedOut) => Err(self.unavailable().await),
            other => Ok(other?),
        }
    }

    /// Why the pool gave no connection: sqlx's `PoolTimedOut` does not say, so connect once
    /// outside the pool and report what that gives (refused, starting up, shutting down, …).
    async fn unavailable(&self) -> StoreError {
        let pool = self.pool.options();
        let waited = pool.get_acquire_timeout();
        let max = pool.get_max_connections();
        let busy = self.pool.size() >= max && self.pool.num_idle() == 0;
        let options = self.pool.connect_options();
        let cause = match tokio::time::timeout(PROBE_TIMEOUT, PgConnection::connect_with(&options)).await {
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("connecting to the server did not finish within {} ms (unreachable?)", PROBE_TIMEOUT.as_millis()),
            Ok(Ok(c)) => {
                let _ = c.close().await;
                if busy {
                    format!("all {max} connections of the pool stayed busy")
                } else {
                    "the server did not accept a connection in that time; it does again now (it was restarting, or unreachable)".into()
                }
            }
        };
        StoreError::Unavailable { waited, cause }
    }

    /// The connection pool, for embedders and benchmarks.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

impl_store!(PostgresStore);
