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
        let mut m = sqlx::migrate!("migrations/sqlite");
        m.dangerous_set_table_name(Self::MIGRATIONS_TABLE);
        m
    }

    /// Open (creating if needed) and migrate the ledger at `path`.
    ///
    /// Several processes may open a fresh file at once. What SQLite answers "locked" without
    /// waiting for its busy timeout (setting the journal mode while another connection opens the
    /// file, a write on a read snapshot another process has moved past) and a lost race on sqlx's
    /// bookkeeping row are tried again, for as long as the busy timeout; any other migration
    /// error a few times (another opener may have applied the migration between this one's
    /// reading and running it).
    pub async fn open(path: &str) -> Result<SqliteStore, StoreError> {
        const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
        let options = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(BUSY_TIMEOUT);
        let migrator = Self::migrator();
        let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
        let mut tries = 0;
        loop {
            let opened = async {
                let pool = SqlitePoolOptions::new().max_connections(4).connect_with(options.clone()).await?;
                migrator.run(&pool).await?;
                Ok::<_, StoreError>(pool)
            };
            match opened.await {
                Ok(pool) => return Ok(SqliteStore { pool, sql: Arc::new(Statements::new("oncely_effects", "oncely_history", '?')) }),
                // A migration that failed otherwise may have lost a race too (another opener
                // applied it between this one's reading and running it): tried again a few times.
                Err(e)
                    if std::time::Instant::now() < deadline && (lost_race(&e) || (matches!(e, StoreError::Migrate(_)) && tries < 20)) =>
                {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis((25 * tries).min(500))).await;
                }
                Err(e) => return Err(e),
            }
        }
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

/// Whether opening lost a race with another opener: SQLite said the file is locked
/// (SQLITE_BUSY, SQLITE_LOCKED), or, while migrating, another opener recorded the same migration
/// first (SQLITE_CONSTRAINT on sqlx's bookkeeping row). Any extended code.
fn lost_race(e: &StoreError) -> bool {
    let primary = |db: &dyn sqlx::error::DatabaseError| db.code().and_then(|c| c.parse::<i32>().ok()).map(|c| c & 0xff);
    match e {
        StoreError::Database(sqlx::Error::Database(db)) => matches!(primary(db.as_ref()), Some(5 | 6)),
        StoreError::Migrate(
            sqlx::migrate::MigrateError::Execute(sqlx::Error::Database(db))
            | sqlx::migrate::MigrateError::ExecuteMigration(sqlx::Error::Database(db), _),
        ) => matches!(primary(db.as_ref()), Some(5 | 6 | 19)),
        _ => false,
    }
}

impl_store!(SqliteStore);
