-- When each entry next needs time-driven work (ms since the Unix epoch), computed by the core at
-- every write (`due-at` in wit/ledger.wit): sweep and purge select `due_at <= now` and let the
-- core decide, instead of re-expressing its rules in SQL. NULL: never by time alone (escalated).
-- Rows written before this column existed are due at once: the next sweep tends each, and the
-- core writes its real due time (or purges it).
ALTER TABLE oncely_effects ADD COLUMN due_at INTEGER;
UPDATE oncely_effects SET due_at = 0;
DROP INDEX IF EXISTS oncely_effects_by_state;
CREATE INDEX IF NOT EXISTS oncely_effects_by_due ON oncely_effects (due_at) WHERE due_at IS NOT NULL;
