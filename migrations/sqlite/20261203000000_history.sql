-- Each entry's history (wit/ledger.wit, step 3 of the protocol): the insert, and every update
-- that changes the state, the attempt, the reason, the reconciliation count or the settlement,
-- keeps a copy of those columns, in the same statement as the write (triggers, so every host
-- that applies these migrations keeps the same history). Heartbeats and due-at corrections add
-- nothing; a purge deletes the history with the entry. `settlement` is the id the core gives a
-- human's settlement (`resolve`).
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
