-- The entries that may need a person (escalated, or in doubt), in the order they have waited:
-- the inbox of `oncely serve`, its counts and its webhook scan read them page by page through
-- this index (`waiting` in host/src/store/mod.rs), none left out however many there are.
CREATE INDEX IF NOT EXISTS oncely_effects_waiting ON oncely_effects (in_doubt_since, scope, key)
    WHERE state IN ('in-doubt', 'escalated');
