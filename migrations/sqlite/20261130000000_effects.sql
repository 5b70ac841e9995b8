-- The effect ledger (SQLite). One row per (scope, key); every field of the core's `entry`
-- record (wit/ledger.wit). Times are milliseconds since the Unix epoch.
CREATE TABLE IF NOT EXISTS oncely_effects (
    scope              TEXT    NOT NULL,
    key                TEXT    NOT NULL,
    tool               TEXT    NOT NULL,
    fingerprint        TEXT    NOT NULL,
    args_canonical     TEXT    NOT NULL,
    state              TEXT    NOT NULL CHECK (state IN ('pending', 'done', 'failed', 'in-doubt', 'escalated')),
    version            INTEGER NOT NULL CHECK (version >= 1),
    attempt            INTEGER NOT NULL CHECK (attempt >= 1),
    owner              TEXT    NOT NULL,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    lease_until        INTEGER NOT NULL,
    in_doubt_since     INTEGER,
    next_reconcile_at  INTEGER,
    reconcile_attempts INTEGER NOT NULL,
    result_json        TEXT,
    reason             TEXT,
    resolved_by        TEXT,
    reconcile_kind     TEXT    NOT NULL CHECK (reconcile_kind IN ('none', 'provider-idempotent', 'lookup', 'manual')),
    reconcile_tool     TEXT,
    lease_ms           INTEGER NOT NULL,
    reconcile_after_ms INTEGER NOT NULL,
    escalate_after_ms  INTEGER NOT NULL,
    retention_ms       INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS oncely_effects_by_state ON oncely_effects (state, updated_at);
