-- The effect ledger (PostgreSQL), in its own schema. One row per (scope, key); every field of
-- the core's `entry` record (wit/ledger.wit). Times are milliseconds since the Unix epoch.
CREATE SCHEMA IF NOT EXISTS oncely;

CREATE TABLE IF NOT EXISTS oncely.effects (
    scope              TEXT   NOT NULL,
    key                TEXT   NOT NULL,
    tool               TEXT   NOT NULL,
    fingerprint        TEXT   NOT NULL,
    args_canonical     TEXT   NOT NULL,
    state              TEXT   NOT NULL CHECK (state IN ('pending', 'done', 'failed', 'in-doubt', 'escalated')),
    version            BIGINT NOT NULL CHECK (version >= 1),
    attempt            BIGINT NOT NULL CHECK (attempt >= 1),
    owner              TEXT   NOT NULL,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    lease_until        BIGINT NOT NULL,
    in_doubt_since     BIGINT,
    next_reconcile_at  BIGINT,
    reconcile_attempts BIGINT NOT NULL,
    result_json        TEXT,
    reason             TEXT,
    resolved_by        TEXT,
    reconcile_kind     TEXT   NOT NULL CHECK (reconcile_kind IN ('none', 'provider-idempotent', 'lookup', 'manual')),
    reconcile_tool     TEXT,
    lease_ms           BIGINT NOT NULL,
    reconcile_after_ms BIGINT NOT NULL,
    escalate_after_ms  BIGINT NOT NULL,
    retention_ms       BIGINT NOT NULL,
    PRIMARY KEY (scope, key)
);

CREATE INDEX IF NOT EXISTS effects_by_state ON oncely.effects (state, updated_at);
