import{MigrationError,sameBytes,sha384}from"./chunk-LUINOZXA.js";var sqlite=[{version:"20261130000000",description:"effects",file:"20261130000000_effects.sql",sql:`-- The effect ledger (SQLite). One row per (scope, key); every field of the core's \`entry\`
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
`},{version:"20261201000000",description:"due at",file:"20261201000000_due_at.sql",sql:`-- When each entry next needs time-driven work (ms since the Unix epoch), computed by the core at
-- every write (\`due-at\` in wit/ledger.wit): sweep and purge select \`due_at <= now\` and let the
-- core decide, instead of re-expressing its rules in SQL. NULL: never by time alone (escalated).
-- Rows written before this column existed are due at once: the next sweep tends each, and the
-- core writes its real due time (or purges it).
ALTER TABLE oncely_effects ADD COLUMN due_at INTEGER;
UPDATE oncely_effects SET due_at = 0;
DROP INDEX IF EXISTS oncely_effects_by_state;
CREATE INDEX IF NOT EXISTS oncely_effects_by_due ON oncely_effects (due_at) WHERE due_at IS NOT NULL;
`},{version:"20261202000000",description:"max call",file:"20261202000000_max_call.sql",sql:`-- The longest a tool call may be in flight (ms), fixed at claim from the policy's \`maxCallMs\`
-- (\`max-call-ms\` in wit/ledger.wit): a reconciler's "did not happen" is believed only once the
-- attempt's last possible start plus this much has passed. Rows written before this column
-- existed get the core's default, 30 s.
ALTER TABLE oncely_effects ADD COLUMN max_call_ms INTEGER NOT NULL DEFAULT 30000;
`},{version:"20261203000000",description:"history",file:"20261203000000_history.sql",sql:`-- Each entry's history (wit/ledger.wit, step 3 of the protocol): the insert, and every update
-- that changes the state, the attempt, the reason, the reconciliation count or the settlement,
-- keeps a copy of those columns, in the same statement as the write (triggers, so every host
-- that applies these migrations keeps the same history). Heartbeats and due-at corrections add
-- nothing; a purge deletes the history with the entry. \`settlement\` is the id the core gives a
-- human's settlement (\`resolve\`).
ALTER TABLE oncely_effects ADD COLUMN settlement TEXT;

CREATE TABLE IF NOT EXISTS oncely_history (
    scope              TEXT    NOT NULL,
    key                TEXT    NOT NULL,
    version            INTEGER NOT NULL,
    at                 INTEGER NOT NULL,
    state              TEXT    NOT NULL,
    attempt            INTEGER NOT NULL,
    owner              TEXT    NOT NULL,
    reconcile_attempts INTEGER NOT NULL,
    reason             TEXT,
    resolved_by        TEXT,
    settlement         TEXT,
    PRIMARY KEY (scope, key, version)
) WITHOUT ROWID;

-- Entries written before this migration start their history with their state now.
INSERT OR IGNORE INTO oncely_history
SELECT scope, key, version, updated_at, state, attempt, owner, reconcile_attempts, reason, resolved_by, settlement
FROM oncely_effects;

CREATE TRIGGER IF NOT EXISTS oncely_history_on_insert AFTER INSERT ON oncely_effects
BEGIN
    INSERT OR IGNORE INTO oncely_history
    VALUES (NEW.scope, NEW.key, NEW.version, NEW.updated_at, NEW.state, NEW.attempt, NEW.owner,
            NEW.reconcile_attempts, NEW.reason, NEW.resolved_by, NEW.settlement);
END;

CREATE TRIGGER IF NOT EXISTS oncely_history_on_update AFTER UPDATE ON oncely_effects
WHEN NEW.state IS NOT OLD.state OR NEW.attempt IS NOT OLD.attempt OR NEW.reason IS NOT OLD.reason
  OR NEW.reconcile_attempts IS NOT OLD.reconcile_attempts OR NEW.settlement IS NOT OLD.settlement
BEGIN
    INSERT OR IGNORE INTO oncely_history
    VALUES (NEW.scope, NEW.key, NEW.version, NEW.updated_at, NEW.state, NEW.attempt, NEW.owner,
            NEW.reconcile_attempts, NEW.reason, NEW.resolved_by, NEW.settlement);
END;

CREATE TRIGGER IF NOT EXISTS oncely_history_on_delete AFTER DELETE ON oncely_effects
BEGIN
    DELETE FROM oncely_history WHERE scope = OLD.scope AND key = OLD.key;
END;
`},{version:"20261204000000",description:"run step",file:"20261204000000_run_step.sql",sql:`-- The run and step of the claim that holds (or last held) an entry (\`run-id\`, \`step-id\` in
-- wit/ledger.wit): for the people who settle it, who want to know which conversation or job it
-- came from. Rows written before these columns existed have them empty.
ALTER TABLE oncely_effects ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE oncely_effects ADD COLUMN step_id TEXT NOT NULL DEFAULT '';
`},{version:"20261205000000",description:"waiting",file:"20261205000000_waiting.sql",sql:`-- The entries that may need a person (escalated, or in doubt), in the order they have waited:
-- the inbox of \`oncely serve\`, its counts and its webhook scan read them page by page through
-- this index (\`waiting\` in host/src/store/mod.rs), none left out however many there are.
CREATE INDEX IF NOT EXISTS oncely_effects_waiting ON oncely_effects (in_doubt_since, scope, key)
    WHERE state IN ('in-doubt', 'escalated');
`},{version:"20261206000000",description:"history in row",file:"20261206000000_history_in_row.sql",sql:`-- Each entry's history now lives in its own row (\`history\`, a JSON array of records, oldest
-- first), so that a write touches the entry's page and its due-at index, not a second B-tree as
-- well: a fresh effect wrote 7.42 pages of WAL with the separate table (docs/performance.md).
-- A record is \`[version, at, state, attempt, owner, reconcile_attempts, reason, resolved_by,
-- settlement]\`, the same fields and rule as before: the insert, and every update that changes
-- the state, the attempt, the reason, the reconciliation count or the settlement, appends one
-- in the same statement as the write; heartbeats and due-at corrections append nothing; a
-- purge deletes the history with its row. \`oncely_history\` is now a view with the columns the
-- table had, so every reader's SQL is unchanged.
ALTER TABLE oncely_effects ADD COLUMN history TEXT;

DROP TRIGGER IF EXISTS oncely_history_on_insert;
DROP TRIGGER IF EXISTS oncely_history_on_update;
DROP TRIGGER IF EXISTS oncely_history_on_delete;

-- The records kept so far move into their rows (the table's key orders them by version).
UPDATE oncely_effects SET history = (
    SELECT json_group_array(json_array(h.version, h.at, h.state, h.attempt, h.owner,
                                       h.reconcile_attempts, h.reason, h.resolved_by, h.settlement))
    FROM oncely_history AS h
    WHERE h.scope = oncely_effects.scope AND h.key = oncely_effects.key
);

DROP TABLE oncely_history;

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

-- An AFTER trigger's UPDATE of the row it follows rewrites the page the write already changed.
-- Its own update changes only \`history\`, which the update trigger does not watch.
CREATE TRIGGER oncely_history_on_insert AFTER INSERT ON oncely_effects
BEGIN
    UPDATE oncely_effects
    SET history = json_array(json_array(NEW.version, NEW.updated_at, NEW.state, NEW.attempt, NEW.owner,
                                        NEW.reconcile_attempts, NEW.reason, NEW.resolved_by, NEW.settlement))
    WHERE scope = NEW.scope AND key = NEW.key;
END;

CREATE TRIGGER oncely_history_on_update
AFTER UPDATE OF state, attempt, reason, reconcile_attempts, settlement ON oncely_effects
WHEN NEW.state IS NOT OLD.state OR NEW.attempt IS NOT OLD.attempt OR NEW.reason IS NOT OLD.reason
  OR NEW.reconcile_attempts IS NOT OLD.reconcile_attempts OR NEW.settlement IS NOT OLD.settlement
BEGIN
    UPDATE oncely_effects
    SET history = json_insert(COALESCE(history, '[]'), '$[#]',
                              json_array(NEW.version, NEW.updated_at, NEW.state, NEW.attempt, NEW.owner,
                                         NEW.reconcile_attempts, NEW.reason, NEW.resolved_by, NEW.settlement))
    WHERE scope = NEW.scope AND key = NEW.key;
END;
`},{version:"20261207000000",description:"history by write",file:"20261207000000_history_by_write.sql",sql:`-- Each write appends its own history record (\`row-write.history\`, wit/effect.wit): the insert
-- sets \`history\` to the written row's record and an update the core marked appends it, in the
-- write's own statement. The triggers restated the core's rule of which updates are kept; they
-- also updated the row a second time in every write (docs/performance.md counts what that
-- cost). Rows and the view \`oncely_history\` are unchanged.
DROP TRIGGER IF EXISTS oncely_history_on_insert;
DROP TRIGGER IF EXISTS oncely_history_on_update;
`},{version:"20261208000000",description:"approval",file:"20261208000000_approval.sql",sql:`-- A call may wait for a person's approval before it runs (issue 27): three more states,
-- \`awaiting-approval\`, \`approved\` and \`denied\` (wit/ledger.wit). SQLite cannot change a CHECK
-- constraint in place, so the table is made again with the wider one and the rows copied, as
-- SQLite's documentation describes ("Making other kinds of table schema changes"); its indexes
-- and the view \`oncely_history\`, which name the table, are made again after it. Every column,
-- the key and \`WITHOUT ROWID\` are as before.
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
`},{version:"20261209000000",description:"awaiting",file:"20261209000000_awaiting.sql",sql:`-- The calls awaiting a person's approval, in the order they were asked (\`oncely serve\`'s inbox
-- pages through them): only those rows, in that order.
CREATE INDEX IF NOT EXISTS oncely_effects_awaiting ON oncely_effects (updated_at, scope, key)
    WHERE state = 'awaiting-approval';
`}],postgres=[{version:"20261130000000",description:"effects",file:"20261130000000_effects.sql",sql:`-- The effect ledger (PostgreSQL), in its own schema. One row per (scope, key); every field of
-- the core's \`entry\` record (wit/ledger.wit). Times are milliseconds since the Unix epoch.
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
`},{version:"20261201000000",description:"due at",file:"20261201000000_due_at.sql",sql:`-- When each entry next needs time-driven work (ms since the Unix epoch), computed by the core at
-- every write (\`due-at\` in wit/ledger.wit): sweep and purge select \`due_at <= now\` and let the
-- core decide, instead of re-expressing its rules in SQL. NULL: never by time alone (escalated).
-- Rows written before this column existed are due at once: the next sweep tends each, and the
-- core writes its real due time (or purges it).
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS due_at BIGINT;
UPDATE oncely.effects SET due_at = 0;
DROP INDEX IF EXISTS oncely.effects_by_state;
CREATE INDEX IF NOT EXISTS effects_by_due ON oncely.effects (due_at) WHERE due_at IS NOT NULL;
`},{version:"20261202000000",description:"max call",file:"20261202000000_max_call.sql",sql:`-- The longest a tool call may be in flight (ms), fixed at claim from the policy's \`maxCallMs\`
-- (\`max-call-ms\` in wit/ledger.wit): a reconciler's "did not happen" is believed only once the
-- attempt's last possible start plus this much has passed. Rows written before this column
-- existed get the core's default, 30 s.
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS max_call_ms BIGINT NOT NULL DEFAULT 30000;
`},{version:"20261203000000",description:"history",file:"20261203000000_history.sql",sql:`-- Each entry's history (wit/ledger.wit, step 3 of the protocol): the insert, and every update
-- that changes the state, the attempt, the reason, the reconciliation count or the settlement,
-- keeps a copy of those columns, in the same statement as the write (a trigger, so every host
-- that applies these migrations keeps the same history). Heartbeats and due-at corrections add
-- nothing; a purge deletes the history with the entry. \`settlement\` is the id the core gives a
-- human's settlement (\`resolve\`).
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS settlement TEXT;

CREATE TABLE IF NOT EXISTS oncely.history (
    scope              TEXT   NOT NULL,
    key                TEXT   NOT NULL,
    version            BIGINT NOT NULL,
    at                 BIGINT NOT NULL,
    state              TEXT   NOT NULL,
    attempt            BIGINT NOT NULL,
    owner              TEXT   NOT NULL,
    reconcile_attempts BIGINT NOT NULL,
    reason             TEXT,
    resolved_by        TEXT,
    settlement         TEXT,
    PRIMARY KEY (scope, key, version)
);

-- Entries written before this migration start their history with their state now.
INSERT INTO oncely.history
SELECT scope, key, version, updated_at, state, attempt, owner, reconcile_attempts, reason, resolved_by, settlement
FROM oncely.effects
ON CONFLICT (scope, key, version) DO NOTHING;

CREATE OR REPLACE FUNCTION oncely.keep_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM oncely.history WHERE scope = OLD.scope AND key = OLD.key;
        RETURN OLD;
    END IF;
    IF TG_OP = 'INSERT'
       OR (NEW.state, NEW.attempt, NEW.reason, NEW.reconcile_attempts, NEW.settlement)
          IS DISTINCT FROM (OLD.state, OLD.attempt, OLD.reason, OLD.reconcile_attempts, OLD.settlement) THEN
        INSERT INTO oncely.history
        VALUES (NEW.scope, NEW.key, NEW.version, NEW.updated_at, NEW.state, NEW.attempt, NEW.owner,
                NEW.reconcile_attempts, NEW.reason, NEW.resolved_by, NEW.settlement)
        ON CONFLICT (scope, key, version) DO NOTHING;
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS keep_history ON oncely.effects;
CREATE TRIGGER keep_history AFTER INSERT OR UPDATE OR DELETE ON oncely.effects
    FOR EACH ROW EXECUTE FUNCTION oncely.keep_history();
`},{version:"20261204000000",description:"run step",file:"20261204000000_run_step.sql",sql:`-- The run and step of the claim that holds (or last held) an entry (\`run-id\`, \`step-id\` in
-- wit/ledger.wit): for the people who settle it, who want to know which conversation or job it
-- came from. Rows written before these columns existed have them empty.
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS step_id TEXT NOT NULL DEFAULT '';
`},{version:"20261205000000",description:"waiting",file:"20261205000000_waiting.sql",sql:`-- The entries that may need a person (escalated, or in doubt), in the order they have waited:
-- the inbox of \`oncely serve\`, its counts and its webhook scan read them page by page through
-- this index (\`waiting\` in host/src/store/mod.rs), none left out however many there are.
CREATE INDEX IF NOT EXISTS effects_waiting ON oncely.effects (in_doubt_since, scope, key)
    WHERE state IN ('in-doubt', 'escalated');
`},{version:"20261206000000",description:"history in row",file:"20261206000000_history_in_row.sql",sql:`-- Each entry's history now lives in its own row (\`history\`, a JSON array of records, oldest
-- first), so that a write touches the entry's tuple and its indexes, not a second table and
-- its primary key as well (docs/performance.md). A record is \`[version, at, state, attempt,
-- owner, reconcile_attempts, reason, resolved_by, settlement]\`, the same fields and rule as
-- before: the insert, and every update that changes the state, the attempt, the reason, the
-- reconciliation count or the settlement, appends one in the same statement as the write (a
-- BEFORE trigger sets it on the row being written); heartbeats and due-at corrections append
-- nothing; a purge deletes the history with its row. \`oncely.history\` is now a view with the
-- columns the table had, so every reader's SQL is unchanged.
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS history JSONB;

DROP TRIGGER IF EXISTS keep_history ON oncely.effects;

-- The records kept so far move into their rows.
UPDATE oncely.effects AS e SET history = (
    SELECT jsonb_agg(jsonb_build_array(h.version, h.at, h.state, h.attempt, h.owner,
                                       h.reconcile_attempts, h.reason, h.resolved_by, h.settlement)
                     ORDER BY h.version)
    FROM oncely.history AS h
    WHERE h.scope = e.scope AND h.key = e.key
);

DROP TABLE oncely.history;

CREATE VIEW oncely.history AS
SELECT e.scope,
       e.key,
       (h.r ->> 0)::BIGINT AS version,
       (h.r ->> 1)::BIGINT AS at,
       h.r ->> 2 AS state,
       (h.r ->> 3)::BIGINT AS attempt,
       h.r ->> 4 AS owner,
       (h.r ->> 5)::BIGINT AS reconcile_attempts,
       h.r ->> 6 AS reason,
       h.r ->> 7 AS resolved_by,
       h.r ->> 8 AS settlement
FROM oncely.effects AS e
CROSS JOIN LATERAL jsonb_array_elements(e.history) AS h(r);

CREATE OR REPLACE FUNCTION oncely.keep_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.history := COALESCE(NEW.history, '[]'::jsonb)
        || jsonb_build_array(jsonb_build_array(NEW.version, NEW.updated_at, NEW.state, NEW.attempt, NEW.owner,
                                               NEW.reconcile_attempts, NEW.reason, NEW.resolved_by, NEW.settlement));
    RETURN NEW;
END
$$;

CREATE TRIGGER keep_history BEFORE INSERT ON oncely.effects
    FOR EACH ROW EXECUTE FUNCTION oncely.keep_history();
CREATE TRIGGER keep_history_on_update BEFORE UPDATE ON oncely.effects
    FOR EACH ROW
    WHEN ((NEW.state, NEW.attempt, NEW.reason, NEW.reconcile_attempts, NEW.settlement)
          IS DISTINCT FROM (OLD.state, OLD.attempt, OLD.reason, OLD.reconcile_attempts, OLD.settlement))
    EXECUTE FUNCTION oncely.keep_history();
`},{version:"20261207000000",description:"history by write",file:"20261207000000_history_by_write.sql",sql:`-- Each write appends its own history record (\`row-write.history\`, wit/effect.wit): the insert
-- sets \`history\` to the written row's record and an update the core marked appends it, in the
-- write's own statement. The triggers restated the core's rule of which updates are kept, and
-- cost a PL/pgSQL call per write (docs/performance.md). Rows and the view \`oncely.history\` are
-- unchanged.
DROP TRIGGER IF EXISTS keep_history ON oncely.effects;
DROP TRIGGER IF EXISTS keep_history_on_update ON oncely.effects;
DROP FUNCTION IF EXISTS oncely.keep_history();
`},{version:"20261208000000",description:"approval",file:"20261208000000_approval.sql",sql:"-- A call may wait for a person's approval before it runs (issue 27): three more states,\n-- `awaiting-approval`, `approved` and `denied` (wit/ledger.wit), in the state's CHECK\n-- constraint (the name PostgreSQL gave the column's constraint).\nALTER TABLE oncely.effects DROP CONSTRAINT IF EXISTS effects_state_check;\nALTER TABLE oncely.effects ADD CONSTRAINT effects_state_check\n    CHECK (state IN ('pending', 'done', 'failed', 'in-doubt', 'escalated', 'awaiting-approval', 'approved', 'denied'));\n"},{version:"20261209000000",description:"awaiting",file:"20261209000000_awaiting.sql",sql:`-- The calls awaiting a person's approval, in the order they were asked (\`oncely serve\`'s inbox
-- pages through them): only those rows, in that order.
CREATE INDEX IF NOT EXISTS effects_awaiting ON oncely.effects (updated_at, scope, key)
    WHERE state = 'awaiting-approval';
`}];var SQLITE_MIGRATIONS_TABLE="_oncely_migrations",POSTGRES_SCHEMA="oncely",POSTGRES_MIGRATIONS_TABLE=`${POSTGRES_SCHEMA}._sqlx_migrations`,SQLX_TABLE_SQLITE=`
CREATE TABLE IF NOT EXISTS ${SQLITE_MIGRATIONS_TABLE} (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    success BOOLEAN NOT NULL,
    checksum BLOB NOT NULL,
    execution_time BIGINT NOT NULL
);`,SQLX_TABLE_POSTGRES=`
CREATE TABLE IF NOT EXISTS ${POSTGRES_MIGRATIONS_TABLE} (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMPTZ NOT NULL DEFAULT now(),
    success BOOLEAN NOT NULL,
    checksum BYTEA NOT NULL,
    execution_time BIGINT NOT NULL
);`;async function resolve(list){return Promise.all(list.map(async m=>({version:Number(m.version),description:m.description,sql:m.sql,checksum:await sha384(m.sql)})))}var sqliteMigrations=()=>resolve(sqlite),postgresMigrations=()=>resolve(postgres),bytes=v=>v instanceof Uint8Array?v:new Uint8Array(v);function plan(table,dirty,applied,migrations){if(dirty.length>0)throw new MigrationError(`migration ${dirty[0].version} was partially applied (success = false in ${table}); repair the schema and that row by hand`);let known=new Map(migrations.map(m=>[m.version,m])),done=new Set;for(let a of applied){let v=Number(a.version),m=known.get(v);if(!m)throw new MigrationError(`migration ${v} was previously applied but is missing in the resolved migrations (a newer oncely wrote this ledger?)`);if(!sameBytes(bytes(a.checksum),m.checksum))throw new MigrationError(`migration ${v} was previously applied but has been modified`);done.add(v)}return migrations.filter(m=>!done.has(m.version))}var nowNs=()=>(globalThis.performance?globalThis.performance.now():Date.now())*1e6;function migrateSqlite(db,migrations){db.transaction(()=>{db.exec(SQLX_TABLE_SQLITE);let T=SQLITE_MIGRATIONS_TABLE,dirty=db.all(`SELECT version FROM ${T} WHERE success = false ORDER BY version LIMIT 1`,[]),applied=db.all(`SELECT version, checksum FROM ${T} ORDER BY version`,[]);for(let m of plan(T,dirty,applied,migrations)){let t0=nowNs();db.exec(m.sql);let ns=Math.max(0,Math.round(nowNs()-t0));db.run(`INSERT INTO ${T} ( version, description, success, checksum, execution_time ) VALUES ( ?, ?, TRUE, ?, ? )`,[m.version,m.description,m.checksum,ns])}})}function advisoryLockId(databaseName){return 0x3d32ad9en*BigInt(crc32(new TextEncoder().encode(databaseName)))}var crcTable=null;function crc32(data){if(crcTable===null){crcTable=new Uint32Array(256);for(let n=0;n<256;n++){let c=n;for(let k=0;k<8;k++)c=c&1?3988292384^c>>>1:c>>>1;crcTable[n]=c>>>0}}let crc=4294967295;for(let b of data)crc=crcTable[(crc^b)&255]^crc>>>8;return(crc^4294967295)>>>0}async function migratePostgres(client,migrations){let{rows}=await client.query("SELECT current_database() AS name"),lock=advisoryLockId(rows[0].name).toString();await client.query("SELECT pg_advisory_lock($1)",[lock]);try{let T=POSTGRES_MIGRATIONS_TABLE;await client.query(`CREATE SCHEMA IF NOT EXISTS ${POSTGRES_SCHEMA};`),await client.query(SQLX_TABLE_POSTGRES);let dirty=(await client.query(`SELECT version FROM ${T} WHERE success = false ORDER BY version LIMIT 1`)).rows,applied=(await client.query(`SELECT version, checksum FROM ${T} ORDER BY version`)).rows;for(let m of plan(T,dirty,applied,migrations)){await client.query("BEGIN");try{let t0=nowNs();await client.query(m.sql);let ns=Math.max(0,Math.round(nowNs()-t0));await client.query(`INSERT INTO ${T} ( version, description, success, checksum, execution_time ) VALUES ( $1, $2, TRUE, $3, $4 )`,[m.version,m.description,Buffer.from(m.checksum),ns]),await client.query("COMMIT")}catch(e){throw await client.query("ROLLBACK").catch(()=>{}),e}}}finally{await client.query("SELECT pg_advisory_unlock($1)",[lock])}}export{sqliteMigrations,postgresMigrations,migrateSqlite,migratePostgres};
