-- Each entry's history now lives in its own row (`history`, a JSON array of records, oldest
-- first), so that a write touches the entry's page and its due-at index, not a second B-tree as
-- well: a fresh effect wrote 7.42 pages of WAL with the separate table (docs/performance.md).
-- A record is `[version, at, state, attempt, owner, reconcile_attempts, reason, resolved_by,
-- settlement]`, the same fields and rule as before: the insert, and every update that changes
-- the state, the attempt, the reason, the reconciliation count or the settlement, appends one
-- in the same statement as the write; heartbeats and due-at corrections append nothing; a
-- purge deletes the history with its row. `oncely_history` is now a view with the columns the
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
-- Its own update changes only `history`, which the update trigger does not watch.
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
