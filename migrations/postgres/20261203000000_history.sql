-- Each entry's history (wit/ledger.wit, step 3 of the protocol): the insert, and every update
-- that changes the state, the attempt, the reason, the reconciliation count or the settlement,
-- keeps a copy of those columns, in the same statement as the write (a trigger, so every host
-- that applies these migrations keeps the same history). Heartbeats and due-at corrections add
-- nothing; a purge deletes the history with the entry. `settlement` is the id the core gives a
-- human's settlement (`resolve`).
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
