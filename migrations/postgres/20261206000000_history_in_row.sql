-- Each entry's history now lives in its own row (`history`, a JSON array of records, oldest
-- first), so that a write touches the entry's tuple and its indexes, not a second table and
-- its primary key as well (docs/performance.md). A record is `[version, at, state, attempt,
-- owner, reconcile_attempts, reason, resolved_by, settlement]`, the same fields and rule as
-- before: the insert, and every update that changes the state, the attempt, the reason, the
-- reconciliation count or the settlement, appends one in the same statement as the write (a
-- BEFORE trigger sets it on the row being written); heartbeats and due-at corrections append
-- nothing; a purge deletes the history with its row. `oncely.history` is now a view with the
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
