//! SQLite backend: the embedded default. One file; WAL journal; `synchronous = FULL`, so a
//! commit that returned is on disk (durability is on by default; `docs/reliability.md`). Many
//! processes may share the file: a claim is one `INSERT … ON CONFLICT DO NOTHING` and every
//! later write one `UPDATE … WHERE version = ?`, each atomic under SQLite's write lock.
//!
//! Applied migrations are recorded in `_oncely_migrations` (sqlx's table layout and rows, under
//! oncely's own name): the ledger may share a file with an application's own sqlx migrations in
//! `_sqlx_migrations`, and two migrators sharing one table each refuse the other's rows. The
//! Python and JavaScript hosts use the same table, so any of them may open a ledger first.

use super::{impl_store, Statements};
use crate::error::StoreError;
use crate::wit::ledger::Entry;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// A ledger in a SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    sql: Arc<Statements>,
}

impl SqliteStore {
    /// Where applied migrations are recorded (sqlx's table layout and rows).
    pub const MIGRATIONS_TABLE: &'static str = "_oncely_migrations";

    /// The migrator: this crate's SQLite migrations, recorded in [`Self::MIGRATIONS_TABLE`].
    pub fn migrator() -> Migrator {
        let mut m = sqlx::migrate!("./migrations/sqlite");
        m.dangerous_set_table_name(Self::MIGRATIONS_TABLE);
        m
    }

    /// Open (creating if needed) and migrate the ledger at `path`.
    pub async fn open(path: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(30));
        let pool = SqlitePoolOptions::new().max_connections(4).connect_with(options).await?;
        // Several processes may open a fresh file at once: the migration is idempotent
        // (IF NOT EXISTS), and a lost race on sqlx's bookkeeping row is retried.
        let migrator = Self::migrator();
        let mut tries = 0;
        loop {
            match migrator.run(&pool).await {
                Ok(()) => break,
                Err(_) if tries < 20 => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(25 * tries)).await;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(SqliteStore { pool, sql: Arc::new(Statements::new("oncely_effects", '?')) })
    }

    /// A pooled connection.
    pub(crate) async fn conn(&self) -> Result<sqlx::pool::PoolConnection<sqlx::Sqlite>, StoreError> {
        Ok(self.pool.acquire().await?)
    }

    /// The connection pool, for embedders and benchmarks.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }
}

impl_store!(SqliteStore);
