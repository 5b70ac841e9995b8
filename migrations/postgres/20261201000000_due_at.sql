-- When each entry next needs time-driven work (ms since the Unix epoch), computed by the core at
-- every write (`due-at` in wit/ledger.wit): sweep and purge select `due_at <= now` and let the
-- core decide, instead of re-expressing its rules in SQL. NULL: never by time alone (escalated).
-- Rows written before this column existed are due at once: the next sweep tends each, and the
-- core writes its real due time (or purges it).
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS due_at BIGINT;
UPDATE oncely.effects SET due_at = 0;
DROP INDEX IF EXISTS oncely.effects_by_state;
CREATE INDEX IF NOT EXISTS effects_by_due ON oncely.effects (due_at) WHERE due_at IS NOT NULL;
