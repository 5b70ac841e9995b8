//! PostgreSQL backend: one ledger shared by many workers on many machines. The table lives in
//! its own schema (`oncely.effects`). A claim is one `INSERT … ON CONFLICT DO NOTHING`, every
//! later write one `UPDATE … WHERE version = $n`; PostgreSQL's row locks make both atomic at
//! the default isolation level. Commits are as durable as the server is configured to make them.

use super::{impl_store, Statements};
use crate::error::StoreError;
use crate::wit::ledger::Entry;
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
    /// Connect to `url` and migrate (sqlx holds an advisory lock, so concurrent openers are safe).
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let pool = PgPoolOptions::new().max_connections(16).acquire_timeout(Duration::from_secs(30)).connect(url).await?;
        sqlx::migrate!("./migrations/postgres").run(&pool).await?;
        Ok(PostgresStore { pool, sql: Arc::new(Statements::new("oncely.effects", '$')) })
    }

    /// The connection pool, for embedders and benchmarks.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

impl_store!(PostgresStore);
