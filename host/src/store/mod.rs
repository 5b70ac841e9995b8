//! Ledger storage: one small trait, three real backends (`sqlite`, `postgres`, and `redis` with
//! the cargo feature `redis`).
//!
//! The storage contract is the one `wit/ledger.wit` asks of a host: `insert` is
//! insert-if-absent, `update` and `delete` are compare-and-swap on `version`, and every query
//! names the scope. Storage never decides anything; the core does.

mod postgres;
#[cfg(feature = "redis")]
mod redis;
mod sqlite;

pub use postgres::{PostgresOptions, PostgresStore};
#[cfg(feature = "redis")]
pub use redis::{Durability, RedisOptions, RedisStore};
pub use sqlite::SqliteStore;

use crate::error::StoreError;
use crate::wit::ledger::{Entry, EntryState};
use crate::wit::policy::ReconcilePath;

/// What `list` returns.
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    /// Only this state.
    pub state: Option<EntryState>,
    /// Only this tool.
    pub tool: Option<String>,
    /// Only entries written at or after this time (ms since the Unix epoch: `updated_at`).
    pub since: Option<u64>,
    /// At most this many rows (newest first). `Ledger::list` reads 0 as the core's page size
    /// (`core-defaults.page-size`, 100); a store given 0 returns none.
    pub limit: u32,
}

/// What a step's replay rule compares of a row (`wit/effect.wit`, `replay-rule`): a replay
/// reads these four columns, not the whole row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The row's state.
    pub state: EntryState,
    /// The fingerprint of its intent.
    pub fingerprint: String,
    /// Its tool.
    pub tool: String,
    /// Its recorded result, if any.
    pub result_json: Option<String>,
}

/// What a replay's read found ([`Store::recorded`]).
#[derive(Debug, Clone)]
pub enum Found {
    /// The four columns a replay compares: a store's narrow read.
    Recorded(Recorded),
    /// The whole row: a store without one.
    Row(Box<Entry>),
}

/// The storage a ledger needs.
#[allow(async_fn_in_trait)]
pub trait Store {
    /// The entry for `(scope, key)`, if any.
    async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, StoreError>;
    /// What a replay compares of the row of `(scope, key)`, if any: a store may read only these
    /// four columns ([`Found::Recorded`]; the whole row follows when they are not the effect's
    /// record); by default the row is read whole, once.
    async fn recorded(&self, scope: &str, key: &str) -> Result<Option<Found>, StoreError> {
        Ok(self.get(scope, key).await?.map(|e| Found::Row(Box::new(e))))
    }
    /// Insert if absent, its history the written row's record; `false` if a row for
    /// `(scope, key)` already exists. `claims` (the core's `row-write.claims`): the row is a
    /// claim the tool will be called under; a store that can wait for its replicas waits for it
    /// (the Redis store's `WAIT`) before it returns.
    async fn insert(&self, entry: &Entry, claims: bool) -> Result<bool, StoreError>;
    /// Replace the row if its version is still `expected_version`; `false` if not. With
    /// `history` (the core's `row-write.history`), the written row's record is appended to the
    /// entry's history in the same statement; `claims` as for [`Store::insert`].
    async fn update(&self, expected_version: u64, entry: &Entry, history: bool, claims: bool) -> Result<bool, StoreError>;
    /// Delete the row if its version is still `expected_version`; `false` if not.
    async fn delete(&self, scope: &str, key: &str, expected_version: u64) -> Result<bool, StoreError>;
    /// Entries of one scope (every scope when `None`), newest first.
    async fn list(&self, scope: Option<&str>, filter: &ListFilter) -> Result<Vec<Entry>, StoreError>;
    /// Entries due for time-driven work at `now` (`due_at <= now`, the time the core computed at
    /// their last write), soonest first; all scopes when `None`. The core decides what, if
    /// anything, each needs.
    async fn due(&self, scope: Option<&str>, now: u64, limit: u32) -> Result<Vec<Entry>, StoreError>;
    /// The history of `(scope, key)`, oldest first (empty when there is no entry): the records
    /// the insert and each update the core marked (`row-write.history`: one that changed the
    /// entry's state, attempt, reason, reconciliation count or settlement) appended
    /// (wit/ledger.wit).
    async fn history(&self, scope: &str, key: &str) -> Result<Vec<HistoryRecord>, StoreError>;
    /// How many entries are in each state, and since when the oldest in-doubt entry (not yet
    /// escalated) has been in doubt: what metrics report.
    async fn stats(&self) -> Result<Stats, StoreError>;
    /// One page of the entries that may need a person, every scope: every escalated entry, and
    /// every in-doubt entry in doubt since `in_doubt_by` or earlier (none when `None`; the core's
    /// `ledger.needs-person-since` gives it), in the order of `in_doubt_since` (then scope, key),
    /// from after `page.after`. The core's `ledger.needs-person` is the rule; `Ledger::needs_person`
    /// asks it of each row.
    async fn waiting(&self, in_doubt_by: Option<u64>, page: &WaitingPage) -> Result<Vec<Entry>, StoreError>;
    /// How many entries `waiting` would return over every page: (escalated, in doubt).
    async fn waiting_count(&self, in_doubt_by: Option<u64>) -> Result<(u64, u64), StoreError>;
    /// One page of the calls awaiting a person's approval, every scope, in the order they were
    /// asked (`updated_at`, then scope, key; the cursor's `since` is `updated_at`), from after
    /// `page.after`.
    async fn awaiting(&self, page: &WaitingPage) -> Result<Vec<Entry>, StoreError>;
    /// How many calls await approval, every scope.
    async fn awaiting_count(&self) -> Result<u64, StoreError>;
    /// The entry of `scope` and `tool`, other than `key`, approved most recently (its history
    /// holds an `approved` record; not one denied since): what a person compares a new request
    /// with.
    async fn last_approved(&self, scope: &str, tool: &str, key: &str) -> Result<Option<Entry>, StoreError>;
}

/// Which page of the entries waiting for a person `Store::waiting` reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WaitingPage {
    /// Newest first (the longest waiting first when `false`).
    pub newest_first: bool,
    /// The page starts after this entry (the last of the previous page); `None`: the first page.
    pub after: Option<WaitingCursor>,
    /// At most this many rows. `Ledger::needs_person` reads 0 as the core's page size
    /// (`core-defaults.page-size`, 100); a store given 0 returns none.
    pub limit: u32,
}

/// Where an entry stands in the order of waiting: since when it is in doubt, its scope and key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WaitingCursor {
    /// `in_doubt_since` (ms since the Unix epoch).
    pub since: u64,
    /// The scope.
    pub scope: String,
    /// The key.
    pub key: String,
}

impl WaitingCursor {
    /// The cursor of `e`: an escalated or in-doubt entry's `in_doubt_since` (`updated_at` stands
    /// in for a missing one, which the core never leaves on such an entry); a call awaiting
    /// approval has none, and its `updated_at` is when it was asked.
    pub fn of(e: &Entry) -> WaitingCursor {
        WaitingCursor { since: e.in_doubt_since.unwrap_or(e.updated_at), scope: e.scope.clone(), key: e.key.clone() }
    }
}

/// One record of an entry's history: the entry's columns as one write left them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRecord {
    /// The entry's version after the write.
    pub version: u64,
    /// When (ms since the Unix epoch: the entry's `updated_at`).
    pub at: u64,
    /// The state the write left.
    pub state: EntryState,
    /// The attempt.
    pub attempt: u32,
    /// The attempt's owner.
    pub owner: String,
    /// How many reconciliations had started for the attempt.
    pub reconcile_attempts: u32,
    /// Why (the entry's reason then).
    pub reason: Option<String>,
    /// Who settled it, for a human's settlement.
    pub resolved_by: Option<String>,
    /// The settlement's id, for a human's settlement.
    pub settlement: Option<String>,
}

/// Counts over the whole ledger (every scope).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Entries per state, every state named (0 when none).
    pub by_state: Vec<(EntryState, u64)>,
    /// The earliest `in_doubt_since` among in-doubt entries (ms), if any (escalated ones are
    /// counted by state: they wait for a person, not for a reconciler).
    pub oldest_in_doubt_since: Option<u64>,
    /// Since when the call awaiting approval the longest has been waiting (its `updated_at`,
    /// ms), if any.
    pub oldest_awaiting_since: Option<u64>,
}

/// Any backend, chosen by location: a `postgres://` URL, a `redis://` URL (feature `redis`) or a
/// SQLite file path.
#[derive(Debug, Clone)]
pub enum AnyStore {
    /// Embedded SQLite (the default).
    Sqlite(SqliteStore),
    /// PostgreSQL, for many workers on many machines.
    Postgres(PostgresStore),
    /// Redis or Valkey (a server, a primary with replicas, or a cluster).
    #[cfg(feature = "redis")]
    Redis(RedisStore),
}

impl AnyStore {
    /// Open (and migrate) the ledger at `location`.
    pub async fn open(location: &str) -> Result<AnyStore, StoreError> {
        if location.starts_with("postgres://") || location.starts_with("postgresql://") {
            Ok(AnyStore::Postgres(PostgresStore::connect(location).await?))
        } else if location.starts_with("redis://") || location.starts_with("rediss://") {
            #[cfg(feature = "redis")]
            return Ok(AnyStore::Redis(RedisStore::connect(location).await?));
            #[cfg(not(feature = "redis"))]
            return Err(StoreError::Location(format!("{location} (this build of oncely has no Redis store: cargo feature `redis`)")));
        } else if location.contains("://") {
            Err(StoreError::Location(location.to_string()))
        } else {
            Ok(AnyStore::Sqlite(SqliteStore::open(location).await?))
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            AnyStore::Sqlite($s) => $e,
            AnyStore::Postgres($s) => $e,
            #[cfg(feature = "redis")]
            AnyStore::Redis($s) => $e,
        }
    };
}

impl Store for AnyStore {
    async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, StoreError> {
        dispatch!(self, s => s.get(scope, key).await)
    }
    async fn recorded(&self, scope: &str, key: &str) -> Result<Option<Found>, StoreError> {
        dispatch!(self, s => s.recorded(scope, key).await)
    }
    async fn insert(&self, entry: &Entry, claims: bool) -> Result<bool, StoreError> {
        dispatch!(self, s => s.insert(entry, claims).await)
    }
    async fn update(&self, expected_version: u64, entry: &Entry, history: bool, claims: bool) -> Result<bool, StoreError> {
        dispatch!(self, s => s.update(expected_version, entry, history, claims).await)
    }
    async fn delete(&self, scope: &str, key: &str, expected_version: u64) -> Result<bool, StoreError> {
        dispatch!(self, s => s.delete(scope, key, expected_version).await)
    }
    async fn list(&self, scope: Option<&str>, filter: &ListFilter) -> Result<Vec<Entry>, StoreError> {
        dispatch!(self, s => s.list(scope, filter).await)
    }
    async fn due(&self, scope: Option<&str>, now: u64, limit: u32) -> Result<Vec<Entry>, StoreError> {
        dispatch!(self, s => s.due(scope, now, limit).await)
    }
    async fn history(&self, scope: &str, key: &str) -> Result<Vec<HistoryRecord>, StoreError> {
        dispatch!(self, s => s.history(scope, key).await)
    }
    async fn stats(&self) -> Result<Stats, StoreError> {
        dispatch!(self, s => s.stats().await)
    }
    async fn waiting(&self, in_doubt_by: Option<u64>, page: &WaitingPage) -> Result<Vec<Entry>, StoreError> {
        dispatch!(self, s => s.waiting(in_doubt_by, page).await)
    }
    async fn waiting_count(&self, in_doubt_by: Option<u64>) -> Result<(u64, u64), StoreError> {
        dispatch!(self, s => s.waiting_count(in_doubt_by).await)
    }
    async fn awaiting(&self, page: &WaitingPage) -> Result<Vec<Entry>, StoreError> {
        dispatch!(self, s => s.awaiting(page).await)
    }
    async fn awaiting_count(&self) -> Result<u64, StoreError> {
        dispatch!(self, s => s.awaiting_count().await)
    }
    async fn last_approved(&self, scope: &str, tool: &str, key: &str) -> Result<Option<Entry>, StoreError> {
        dispatch!(self, s => s.last_approved(scope, tool, key).await)
    }
}

/// The column list shared by both dialects, in bind order.
pub const COLUMNS: &str = "scope, key, tool, run_id, step_id, fingerprint, args_canonical, state, version, attempt, \
     owner, created_at, updated_at, lease_until, in_doubt_since, next_reconcile_at, reconcile_attempts, result_json, reason, \
     resolved_by, settlement, reconcile_kind, reconcile_tool, lease_ms, max_call_ms, reconcile_after_ms, escalate_after_ms, \
     retention_ms, due_at";

/// One row as plain column values: the only place entries and rows are converted. The Redis
/// store keeps it as a JSON object of these names.
#[derive(Debug, Clone, sqlx::FromRow)]
#[cfg_attr(feature = "redis", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Row {
    pub scope: String,
    pub key: String,
    pub tool: String,
    pub fingerprint: String,
    pub args_canonical: String,
    pub state: String,
    pub version: i64,
    pub attempt: i64,
    pub owner: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub lease_until: i64,
    pub in_doubt_since: Option<i64>,
    pub next_reconcile_at: Option<i64>,
    pub reconcile_attempts: i64,
    pub result_json: Option<String>,
    pub reason: Option<String>,
    pub resolved_by: Option<String>,
    pub reconcile_kind: String,
    pub reconcile_tool: Option<String>,
    pub lease_ms: i64,
    pub max_call_ms: i64,
    pub reconcile_after_ms: i64,
    pub escalate_after_ms: i64,
    pub retention_ms: i64,
    pub due_at: Option<i64>,
    pub settlement: Option<String>,
    pub run_id: String,
    pub step_id: String,
}

/// One history row as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct HistoryRow {
    pub version: i64,
    pub at: i64,
    pub state: String,
    pub attempt: i64,
    pub owner: String,
    pub reconcile_attempts: i64,
    pub reason: Option<String>,
    pub resolved_by: Option<String>,
    pub settlement: Option<String>,
}

impl HistoryRow {
    pub(crate) fn into_record(self) -> Result<HistoryRecord, StoreError> {
        let corrupt = |what: &str| StoreError::Corrupt(format!("{what} of a history record (version {})", self.version));
        Ok(HistoryRecord {
            version: u(self.version, "version")?,
            at: u(self.at, "at")?,
            state: parse_state(&self.state).ok_or_else(|| corrupt("state"))?,
            attempt: u32::try_from(self.attempt).map_err(|_| corrupt("attempt"))?,
            reconcile_attempts: u32::try_from(self.reconcile_attempts).map_err(|_| corrupt("reconcile_attempts"))?,
            owner: self.owner,
            reason: self.reason,
            resolved_by: self.resolved_by,
            settlement: self.settlement,
        })
    }
}

/// Rows of the per-state count (`stats`).
pub(crate) fn stats_of(rows: Vec<(String, i64, Option<i64>, Option<i64>)>) -> Result<Stats, StoreError> {
    let states = [
        EntryState::Pending,
        EntryState::Done,
        EntryState::Failed,
        EntryState::InDoubt,
        EntryState::Escalated,
        EntryState::AwaitingApproval,
        EntryState::Approved,
        EntryState::Denied,
    ];
    let mut stats = Stats { by_state: states.iter().map(|s| (*s, 0)).collect(), ..Stats::default() };
    for (state, count, oldest, asked) in rows {
        let st = parse_state(&state).ok_or_else(|| StoreError::Corrupt(format!("state {state:?}")))?;
        if let Some(slot) = stats.by_state.iter_mut().find(|(s, _)| *s == st) {
            slot.1 = u(count, "count")?;
        }
        if let Some(t) = oldest {
            let t = u(t, "in_doubt_since")?;
            stats.oldest_in_doubt_since = Some(stats.oldest_in_doubt_since.map_or(t, |o| o.min(t)));
        }
        if let Some(t) = asked {
            let t = u(t, "updated_at")?;
            stats.oldest_awaiting_since = Some(stats.oldest_awaiting_since.map_or(t, |o| o.min(t)));
        }
    }
    Ok(stats)
}

/// The stored name of a state (the same words as the WIT enum).
pub fn state_name(s: EntryState) -> &'static str {
    match s {
        EntryState::Pending => "pending",
        EntryState::Done => "done",
        EntryState::Failed => "failed",
        EntryState::InDoubt => "in-doubt",
        EntryState::Escalated => "escalated",
        EntryState::AwaitingApproval => "awaiting-approval",
        EntryState::Approved => "approved",
        EntryState::Denied => "denied",
    }
}

/// The state named `s`.
pub fn parse_state(s: &str) -> Option<EntryState> {
    Some(match s {
        "pending" => EntryState::Pending,
        "done" => EntryState::Done,
        "failed" => EntryState::Failed,
        "in-doubt" => EntryState::InDoubt,
        "escalated" => EntryState::Escalated,
        "awaiting-approval" => EntryState::AwaitingApproval,
        "approved" => EntryState::Approved,
        "denied" => EntryState::Denied,
        _ => return None,
    })
}

fn i(v: u64) -> i64 {
    // Times and counters are far below 2^63; saturate rather than wrap if one is not.
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn u(v: i64, col: &str) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt(format!("{col} is negative")))
}

impl Row {
    pub(crate) fn from_entry(e: &Entry) -> Row {
        let (kind, tool) = match &e.reconcile {
            ReconcilePath::None => ("none", None),
            ReconcilePath::ProviderIdempotent => ("provider-idempotent", None),
            ReconcilePath::Lookup(t) => ("lookup", Some(t.clone())),
            ReconcilePath::Manual => ("manual", None),
        };
        Row {
            scope: e.scope.clone(),
            key: e.key.clone(),
            tool: e.tool.clone(),
            fingerprint: e.fingerprint.clone(),
            args_canonical: e.args_canonical.clone(),
            state: state_name(e.state).to_string(),
            version: i(e.version),
            attempt: i64::from(e.attempt),
            owner: e.owner.clone(),
            created_at: i(e.created_at),
            updated_at: i(e.updated_at),
            lease_until: i(e.lease_until),
            in_doubt_since: e.in_doubt_since.map(i),
            next_reconcile_at: e.next_reconcile_at.map(i),
            reconcile_attempts: i64::from(e.reconcile_attempts),
            result_json: e.result_json.clone(),
            reason: e.reason.clone(),
            resolved_by: e.resolved_by.clone(),
            reconcile_kind: kind.to_string(),
            reconcile_tool: tool,
            lease_ms: i(e.lease_ms),
            reconcile_after_ms: i(e.reconcile_after_ms),
            escalate_after_ms: i(e.escalate_after_ms),
            retention_ms: i(e.retention_ms),
            due_at: e.due_at.map(i),
            max_call_ms: i(e.max_call_ms),
            settlement: e.settlement.clone(),
            run_id: e.run_id.clone(),
            step_id: e.step_id.clone(),
        }
    }

    pub(crate) fn into_entry(self) -> Result<Entry, StoreError> {
        let corrupt = |what: &str| StoreError::Corrupt(format!("{what} of ({}, {})", self.scope, self.key));
        let reconcile = match (self.reconcile_kind.as_str(), &self.reconcile_tool) {
            ("none", _) => ReconcilePath::None,
            ("provider-idempotent", _) => ReconcilePath::ProviderIdempotent,
            ("manual", _) => ReconcilePath::Manual,
            ("lookup", Some(t)) => ReconcilePath::Lookup(t.clone()),
            _ => return Err(corrupt("reconcile_kind")),
        };
        Ok(Entry {
            state: parse_state(&self.state).ok_or_else(|| corrupt("state"))?,
            version: u(self.version, "version")?,
            attempt: u32::try_from(self.attempt).map_err(|_| corrupt("attempt"))?,
            created_at: u(self.created_at, "created_at")?,
            updated_at: u(self.updated_at, "updated_at")?,
            lease_until: u(self.lease_until, "lease_until")?,
            in_doubt_since: self.in_doubt_since.map(|v| u(v, "in_doubt_since")).transpose()?,
            next_reconcile_at: self.next_reconcile_at.map(|v| u(v, "next_reconcile_at")).transpose()?,
            reconcile_attempts: u32::try_from(self.reconcile_attempts).map_err(|_| corrupt("reconcile_attempts"))?,
            lease_ms: u(self.lease_ms, "lease_ms")?,
            reconcile_after_ms: u(self.reconcile_after_ms, "reconcile_after_ms")?,
            escalate_after_ms: u(self.escalate_after_ms, "escalate_after_ms")?,
            retention_ms: u(self.retention_ms, "retention_ms")?,
            due_at: self.due_at.map(|v| u(v, "due_at")).transpose()?,
            max_call_ms: u(self.max_call_ms, "max_call_ms")?,
            reconcile,
            scope: self.scope,
            key: self.key,
            tool: self.tool,
            fingerprint: self.fingerprint,
            args_canonical: self.args_canonical,
            owner: self.owner,
            result_json: self.result_json,
            reason: self.reason,
            resolved_by: self.resolved_by,
            settlement: self.settlement,
            run_id: self.run_id,
            step_id: self.step_id,
        })
    }
}

/// Bind every column of a row, in `COLUMNS` order, to a query of any dialect.
macro_rules! bind_row {
    ($q:expr, $r:expr) => {{
        let r = $r;
        $q.bind(r.scope)
            .bind(r.key)
            .bind(r.tool)
            .bind(r.run_id)
            .bind(r.step_id)
            .bind(r.fingerprint)
            .bind(r.args_canonical)
            .bind(r.state)
            .bind(r.version)
            .bind(r.attempt)
            .bind(r.owner)
            .bind(r.created_at)
            .bind(r.updated_at)
            .bind(r.lease_until)
            .bind(r.in_doubt_since)
            .bind(r.next_reconcile_at)
            .bind(r.reconcile_attempts)
            .bind(r.result_json)
            .bind(r.reason)
            .bind(r.resolved_by)
            .bind(r.settlement)
            .bind(r.reconcile_kind)
            .bind(r.reconcile_tool)
            .bind(r.lease_ms)
            .bind(r.max_call_ms)
            .bind(r.reconcile_after_ms)
            .bind(r.escalate_after_ms)
            .bind(r.retention_ms)
            .bind(r.due_at)
    }};
}
pub(crate) use bind_row;

/// Every statement of a backend, built once from its table name and placeholder sigil (`?` for
/// SQLite, `$` for PostgreSQL; both number their parameters). The SQL text is ours alone —
/// no value is ever spliced into it — which is what `AssertSqlSafe` asserts.
#[derive(Debug)]
pub(crate) struct Statements {
    pub get: sqlx::SqlStr,
    /// The four columns of `Recorded`.
    pub recorded: sqlx::SqlStr,
    pub insert: sqlx::SqlStr,
    pub update: sqlx::SqlStr,
    /// `update` that also appends the written row's history record.
    pub update_kept: sqlx::SqlStr,
    pub delete: sqlx::SqlStr,
    pub list: sqlx::SqlStr,
    pub due: sqlx::SqlStr,
    pub history: sqlx::SqlStr,
    pub stats: sqlx::SqlStr,
    /// `waiting`, oldest first and newest first.
    pub waiting_oldest: sqlx::SqlStr,
    pub waiting_newest: sqlx::SqlStr,
    pub waiting_count: sqlx::SqlStr,
    /// `awaiting`, oldest first and newest first.
    pub awaiting_oldest: sqlx::SqlStr,
    pub awaiting_newest: sqlx::SqlStr,
    pub awaiting_count: sqlx::SqlStr,
    pub last_approved: sqlx::SqlStr,
}

impl Statements {
    pub(crate) fn new(table: &str, history: &str, sigil: char) -> Statements {
        use sqlx::SqlSafeStr;
        let p = |n: usize| format!("{sigil}{n}");
        let n = COLUMNS.split(", ").count();
        let values = (1..=n).map(p).collect::<Vec<_>>().join(", ");
        let sets = COLUMNS.split(", ").enumerate().map(|(i, c)| format!("{c} = {}", p(i + 1))).collect::<Vec<_>>().join(", ");
        let sql = |s: String| sqlx::AssertSqlSafe(s).into_sql_str();
        let (first, append) = history_sql(sigil);
        // Keyset pages in the order of waiting: the partial index of the `waiting` migration
        // holds exactly the rows of the first term, in this order.
        let waiting = |cmp: &str, dir: &str| {
            format!(
                "SELECT {COLUMNS} FROM {table} WHERE {WAITING} \
                 AND (CAST({p2} AS BIGINT) IS NULL OR (in_doubt_since, scope, key) {cmp} ({p2}, {p3}, {p4})) \
                 ORDER BY in_doubt_since{dir}, scope{dir}, key{dir} LIMIT {p5}",
                WAITING = waiting_where(p(1)),
                p2 = p(2),
                p3 = p(3),
                p4 = p(4),
                p5 = p(5)
            )
        };
        // The same over the calls awaiting approval, in the order they were asked: the partial
        // index of the `approval` migration.
        let awaiting = |cmp: &str, dir: &str| {
            format!(
                "SELECT {COLUMNS} FROM {table} WHERE state = 'awaiting-approval' \
                 AND (CAST({p1} AS BIGINT) IS NULL OR (updated_at, scope, key) {cmp} ({p1}, {p2}, {p3})) \
                 ORDER BY updated_at{dir}, scope{dir}, key{dir} LIMIT {p4}",
                p1 = p(1),
                p2 = p(2),
                p3 = p(3),
                p4 = p(4)
            )
        };
        Statements {
            get: sql(format!("SELECT {COLUMNS} FROM {table} WHERE scope = {} AND key = {}", p(1), p(2))),
            recorded: sql(format!("SELECT state, fingerprint, tool, result_json FROM {table} WHERE scope = {} AND key = {}", p(1), p(2))),
            insert: sql(format!("INSERT INTO {table} ({COLUMNS}, history) VALUES ({values}, {first}) ON CONFLICT (scope, key) DO NOTHING")),
            update: sql(format!("UPDATE {table} SET {sets} WHERE scope = {} AND key = {} AND version = {}", p(n + 1), p(n + 2), p(n + 3))),
            update_kept: sql(format!(
                "UPDATE {table} SET {sets}, history = {append} WHERE scope = {} AND key = {} AND version = {}",
                p(n + 1),
                p(n + 2),
                p(n + 3)
            )),
            delete: sql(format!("DELETE FROM {table} WHERE scope = {} AND key = {} AND version = {}", p(1), p(2), p(3))),
            list: sql(format!(
                "SELECT {COLUMNS} FROM {table} WHERE (CAST({p1} AS TEXT) IS NULL OR scope = {p1}) \
                 AND (CAST({p2} AS TEXT) IS NULL OR state = {p2}) AND (CAST({p3} AS TEXT) IS NULL OR tool = {p3}) \
                 AND (CAST({p5} AS BIGINT) IS NULL OR updated_at >= {p5}) ORDER BY updated_at DESC, scope, key LIMIT {p4}",
                p1 = p(1),
                p2 = p(2),
                p3 = p(3),
                p4 = p(4),
                p5 = p(5)
            )),
            due: sql(format!(
                "SELECT {COLUMNS} FROM {table} WHERE due_at <= {p2} AND (CAST({p1} AS TEXT) IS NULL OR scope = {p1}) \
                 ORDER BY due_at, scope, key LIMIT {p3}",
                p1 = p(1),
                p2 = p(2),
                p3 = p(3)
            )),
            history: sql(format!(
                "SELECT version, at, state, attempt, owner, reconcile_attempts, reason, resolved_by, settlement \
                 FROM {history} WHERE scope = {} AND key = {} ORDER BY version",
                p(1),
                p(2)
            )),
            stats: sql(format!(
                "SELECT state, COUNT(*), MIN(CASE WHEN state = 'in-doubt' THEN in_doubt_since END), \
                 MIN(CASE WHEN state = 'awaiting-approval' THEN updated_at END) FROM {table} GROUP BY state"
            )),
            waiting_oldest: sql(waiting(">", "")),
            waiting_newest: sql(waiting("<", " DESC")),
            waiting_count: sql(format!(
                "SELECT state, COUNT(*) FROM {table} WHERE {WAITING} GROUP BY state",
                WAITING = waiting_where(p(1))
            )),
            awaiting_oldest: sql(awaiting(">", "")),
            awaiting_newest: sql(awaiting("<", " DESC")),
            awaiting_count: sql(format!("SELECT COUNT(*) FROM {table} WHERE state = 'awaiting-approval'")),
            last_approved: sql(format!(
                "SELECT {COLUMNS} FROM {table} JOIN (SELECT h.scope, h.key, MAX(h.at) AS approved_at FROM {history} AS h \
                 JOIN {table} AS t ON t.scope = h.scope AND t.key = h.key \
                 WHERE h.scope = {p1} AND t.tool = {p2} AND t.state <> 'denied' AND h.state = 'approved' \
                 GROUP BY h.scope, h.key) AS a USING (scope, key) \
                 WHERE key <> {p3} ORDER BY a.approved_at DESC, key LIMIT 1",
                p1 = p(1),
                p2 = p(2),
                p3 = p(3)
            )),
        }
    }
}

/// The history column's value at an insert (an array of the written row's record) and at an
/// update that keeps one (the record appended), in the dialect of `sigil` (`?` SQLite, `$`
/// PostgreSQL). A record is `[version, at, state, attempt, owner, reconcile_attempts, reason,
/// resolved_by, settlement]` (the view `history` reads it back), `at` the row's `updated_at`;
/// its values are the write's own parameters, numbered as in `COLUMNS`.
fn history_sql(sigil: char) -> (String, String) {
    let at = |c: &str| COLUMNS.split(", ").position(|x| x == c).map_or(0, |i| i + 1);
    let fields = [
        ("version", "BIGINT"),
        ("updated_at", "BIGINT"),
        ("state", "TEXT"),
        ("attempt", "BIGINT"),
        ("owner", "TEXT"),
        ("reconcile_attempts", "BIGINT"),
        ("reason", "TEXT"),
        ("resolved_by", "TEXT"),
        ("settlement", "TEXT"),
    ];
    if sigil == '$' {
        let record = fields.iter().map(|(c, ty)| format!("CAST(${} AS {ty})", at(c))).collect::<Vec<_>>().join(", ");
        (
            format!("jsonb_build_array(jsonb_build_array({record}))"),
            format!("COALESCE(history, '[]'::jsonb) || jsonb_build_array(jsonb_build_array({record}))"),
        )
    } else {
        let record = fields.iter().map(|(c, _)| format!("{sigil}{}", at(c))).collect::<Vec<_>>().join(", ");
        (format!("json_array(json_array({record}))"), format!("json_insert(COALESCE(history, '[]'), '$[#]', json_array({record}))"))
    }
}

/// The rows that may need a person: escalated, or in doubt since `by` (a parameter) or earlier.
/// The first term names the partial index's condition as it is written (SQLite uses a partial
/// index only when the query repeats its `WHERE`).
fn waiting_where(by: String) -> String {
    format!("state IN ('in-doubt', 'escalated') AND (state = 'escalated' OR in_doubt_since <= CAST({by} AS BIGINT))")
}

fn i64_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The `Store` implementation, identical for both backends (each has `conn()` and `sql`).
macro_rules! impl_store {
    ($ty:ty) => {
        impl $crate::store::Store for $ty {
            async fn get(&self, scope: &str, key: &str) -> Result<Option<Entry>, StoreError> {
                let row: Option<$crate::store::Row> =
                    sqlx::query_as(self.sql.get.clone()).bind(scope).bind(key).fetch_optional(&mut *self.conn().await?).await?;
                row.map($crate::store::Row::into_entry).transpose()
            }

            async fn recorded(&self, scope: &str, key: &str) -> Result<Option<$crate::store::Found>, StoreError> {
                let row: Option<(String, String, String, Option<String>)> =
                    sqlx::query_as(self.sql.recorded.clone()).bind(scope).bind(key).fetch_optional(&mut *self.conn().await?).await?;
                row.map(|(state, fingerprint, tool, result_json)| {
                    let state =
                        $crate::store::parse_state(&state).ok_or_else(|| StoreError::Corrupt(format!("state of ({scope}, {key})")))?;
                    Ok($crate::store::Found::Recorded($crate::store::Recorded { state, fingerprint, tool, result_json }))
                })
                .transpose()
            }

            async fn insert(&self, entry: &Entry, _claims: bool) -> Result<bool, StoreError> {
                let q = $crate::store::bind_row!(sqlx::query(self.sql.insert.clone()), $crate::store::Row::from_entry(entry));
                Ok(q.execute(&mut *self.conn().await?).await?.rows_affected() == 1)
            }

            async fn update(&self, expected_version: u64, entry: &Entry, history: bool, _claims: bool) -> Result<bool, StoreError> {
                let sql = if history { &self.sql.update_kept } else { &self.sql.update };
                let q = $crate::store::bind_row!(sqlx::query(sql.clone()), $crate::store::Row::from_entry(entry))
                    .bind(&entry.scope)
                    .bind(&entry.key)
                    .bind($crate::store::i64_of(expected_version));
                Ok(q.execute(&mut *self.conn().await?).await?.rows_affected() == 1)
            }

            async fn delete(&self, scope: &str, key: &str, expected_version: u64) -> Result<bool, StoreError> {
                let q = sqlx::query(self.sql.delete.clone()).bind(scope).bind(key).bind($crate::store::i64_of(expected_version));
                Ok(q.execute(&mut *self.conn().await?).await?.rows_affected() == 1)
            }

            async fn list(&self, scope: Option<&str>, filter: &$crate::store::ListFilter) -> Result<Vec<Entry>, StoreError> {
                let rows: Vec<$crate::store::Row> = sqlx::query_as(self.sql.list.clone())
                    .bind(scope)
                    .bind(filter.state.map($crate::store::state_name))
                    .bind(filter.tool.as_deref())
                    .bind(i64::from(filter.limit))
                    .bind(filter.since.map($crate::store::i64_of))
                    .fetch_all(&mut *self.conn().await?)
                    .await?;
                rows.into_iter().map($crate::store::Row::into_entry).collect()
            }

            async fn due(&self, scope: Option<&str>, now: u64, limit: u32) -> Result<Vec<Entry>, StoreError> {
                let rows: Vec<$crate::store::Row> = sqlx::query_as(self.sql.due.clone())
                    .bind(scope)
                    .bind($crate::store::i64_of(now))
                    .bind(i64::from(limit))
                    .fetch_all(&mut *self.conn().await?)
                    .await?;
                rows.into_iter().map($crate::store::Row::into_entry).collect()
            }

            async fn history(&self, scope: &str, key: &str) -> Result<Vec<$crate::store::HistoryRecord>, StoreError> {
                let rows: Vec<$crate::store::HistoryRow> =
                    sqlx::query_as(self.sql.history.clone()).bind(scope).bind(key).fetch_all(&mut *self.conn().await?).await?;
                rows.into_iter().map($crate::store::HistoryRow::into_record).collect()
            }

            async fn stats(&self) -> Result<$crate::store::Stats, StoreError> {
                let rows: Vec<(String, i64, Option<i64>, Option<i64>)> =
                    sqlx::query_as(self.sql.stats.clone()).fetch_all(&mut *self.conn().await?).await?;
                $crate::store::stats_of(rows)
            }

            async fn waiting(&self, in_doubt_by: Option<u64>, page: &$crate::store::WaitingPage) -> Result<Vec<Entry>, StoreError> {
                let sql = if page.newest_first { &self.sql.waiting_newest } else { &self.sql.waiting_oldest };
                let after = page.after.as_ref();
                let rows: Vec<$crate::store::Row> = sqlx::query_as(sql.clone())
                    .bind(in_doubt_by.map($crate::store::i64_of))
                    .bind(after.map(|a| $crate::store::i64_of(a.since)))
                    .bind(after.map(|a| a.scope.as_str()))
                    .bind(after.map(|a| a.key.as_str()))
                    .bind(i64::from(page.limit))
                    .fetch_all(&mut *self.conn().await?)
                    .await?;
                rows.into_iter().map($crate::store::Row::into_entry).collect()
            }

            async fn waiting_count(&self, in_doubt_by: Option<u64>) -> Result<(u64, u64), StoreError> {
                let rows: Vec<(String, i64)> = sqlx::query_as(self.sql.waiting_count.clone())
                    .bind(in_doubt_by.map($crate::store::i64_of))
                    .fetch_all(&mut *self.conn().await?)
                    .await?;
                let mut counts = (0, 0);
                for (state, n) in rows {
                    let n = u64::try_from(n).map_err(|_| StoreError::Corrupt("a negative count".into()))?;
                    match state.as_str() {
                        "escalated" => counts.0 = n,
                        _ => counts.1 = n,
                    }
                }
                Ok(counts)
            }

            async fn awaiting(&self, page: &$crate::store::WaitingPage) -> Result<Vec<Entry>, StoreError> {
                let sql = if page.newest_first { &self.sql.awaiting_newest } else { &self.sql.awaiting_oldest };
                let after = page.after.as_ref();
                let rows: Vec<$crate::store::Row> = sqlx::query_as(sql.clone())
                    .bind(after.map(|a| $crate::store::i64_of(a.since)))
                    .bind(after.map(|a| a.scope.as_str()))
                    .bind(after.map(|a| a.key.as_str()))
                    .bind(i64::from(page.limit))
                    .fetch_all(&mut *self.conn().await?)
                    .await?;
                rows.into_iter().map($crate::store::Row::into_entry).collect()
            }

            async fn awaiting_count(&self) -> Result<u64, StoreError> {
                let (n,): (i64,) = sqlx::query_as(self.sql.awaiting_count.clone()).fetch_one(&mut *self.conn().await?).await?;
                u64::try_from(n).map_err(|_| StoreError::Corrupt("a negative count".into()))
            }

            async fn last_approved(&self, scope: &str, tool: &str, key: &str) -> Result<Option<Entry>, StoreError> {
                let row: Option<$crate::store::Row> = sqlx::query_as(self.sql.last_approved.clone())
                    .bind(scope)
                    .bind(tool)
                    .bind(key)
                    .fetch_optional(&mut *self.conn().await?)
                    .await?;
                row.map($crate::store::Row::into_entry).transpose()
            }
        }
    };
}
pub(crate) use impl_store;
