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

use super::{impl_store, Statements};
use crate::error::StoreError;
use crate::wit::ledger::Entry;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};
use std::sync::Arc;
use std::time::Duration;

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
        let mut m = sqlx::migrate!("./migrations/postgres");
        m.create_schema(Self::SCHEMA);
        m.dangerous_set_table_name(Self::MIGRATIONS_TABLE);
        m
    }

    /// Connect to `url` and migrate (sqlx holds an advisory lock, so concurrent openers are safe).
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new().max_connections(16).acquire_timeout(Duration::from_secs(30)).connect(url).await?;
        Self::migrator().run(&pool).await?;
        Ok(PostgresStore { pool, sql: Arc::new(Statements::new("oncely.effects", '$')) })
    }

    /// The connection pool, for embedders and benchmarks.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

impl_store!(PostgresStore);
