-- A call may wait for a person's approval before it runs (issue 27): three more states,
-- `awaiting-approval`, `approved` and `denied` (wit/ledger.wit). SQLite cannot change a CHECK
-- constraint in place, so the table is made again with the wider one and the rows copied, as
-- SQLite's documentation describes ("Making other kinds of table schema changes"); its indexes
-- and the view `oncely_history`, which name the table, are made again after it. Every column,
-- the key and `WITHOUT ROWID` are as before.
DROP VIEW IF EXISTS oncely_history;

CREATE TABLE oncely_effects_new (
    scope              TEXT    NOT NULL,
    key                TEXT    NOT NULL,
    tool               TEXT    NOT NULL,
    fingerprint        TEXT    NOT NULL,
    args_canonical     TEXT    NOT NULL,
    state              TEXT    NOT NULL CHECK (state IN ('pending', 'done', 'failed', 'in-doubt', 'escalated',
                                                         'awaiting-approval', 'approved', 'denied')),
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
    due_at             INTEGER,
    max_call_ms        INTEGER NOT NULL DEFAULT 30000,
    settlement         TEXT,
    run_id             TEXT    NOT NULL DEFAULT '',
    step_id            TEXT    NOT NULL DEFAULT '',
    history            TEXT,
    PRIMARY KEY (scope, key)
) WITHOUT ROWID;

INSERT INTO oncely_effects_new (
    scope, key, tool, fingerprint, args_canonical, state, version, attempt, owner, created_at,
    updated_at, lease_until, in_doubt_since, next_reconcile_at, reconcile_attempts, result_json,
    reason, resolved_by, reconcile_kind, reconcile_tool, lease_ms, reconcile_after_ms,
    escalate_after_ms, retention_ms, due_at, max_call_ms, settlement, run_id, step_id, history)
SELECT
    scope, key, tool, fingerprint, args_canonical, state, version, attempt, owner, created_at,
    updated_at, lease_until, in_doubt_since, next_reconcile_at, reconcile_attempts, result_json,
    reason, resolved_by, reconcile_kind, reconcile_tool, lease_ms, reconcile_after_ms,
    escalate_after_ms, retention_ms, due_at, max_call_ms, settlement, run_id, step_id, history
FROM oncely_effects;

DROP TABLE oncely_effects;
ALTER TABLE oncely_effects_new RENAME TO oncely_effects;

CREATE INDEX oncely_effects_by_due ON oncely_effects (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX oncely_effects_waiting ON oncely_effects (in_doubt_since, scope, key)
    WHERE state IN ('in-doubt', 'escalated');

CREATE VIEW oncely_history AS
SELECT e.scope AS scope,
       e.key AS key,
       CAST(json_extract(h.value, '$[0]') AS INTEGER) AS version,
       CAST(json_extract(h.value, '$[1]') AS INTEGER) AS at,
       json_extract(h.value, '$[2]') AS state,
       CAST(json_extract(h.value, '$[3]') AS INTEGER) AS attempt,
       json_extract(h.value, '$[4]') AS owner,
       CAST(json_extract(h.value, '$[5]') AS INTEGER) AS reconcile_attempts,
       json_extract(h.value, '$[6]') AS reason,
       json_extract(h.value, '$[7]') AS resolved_by,
       json_extract(h.value, '$[8]') AS settlement
FROM oncely_effects AS e, json_each(e.history) AS h;
