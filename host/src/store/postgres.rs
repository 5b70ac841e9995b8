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

use super::{impl_store, Statements};
use crate::error::StoreError;
use crate::wit::ledger::Entry;
use sqlx::migrate::Migrator;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Connection, PgConnection, Postgres};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

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
        let connect = PgConnectOptions::from_str(url)?;
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
        let pool = PgPoolOptions::new()
            .max_connections(options.max_connections)
            .acquire_timeout(options.acquire_timeout)
            // Ping an idle connection before handing it out: one the server dropped (a restart,
            // an idle timeout) is replaced instead of failing the call (sqlx's default, relied on).
            .test_before_acquire(true)
            .connect_lazy_with(connect);
        let store = PostgresStore { pool, sql: Arc::new(Statements::new("oncely.effects", "oncely.history", '$')) };
        Self::migrator().run(&store.pool).await?;
        Ok(store)
    }

    /// A pooled connection; when none comes within the acquire timeout, an error that says why.
    pub(crate) async fn conn(&self) -> Result<PoolConnection<Postgres>, StoreError> {
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
