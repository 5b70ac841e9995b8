-- The run and step of the claim that holds (or last held) an entry (`run-id`, `step-id` in
-- wit/ledger.wit): for the people who settle it, who want to know which conversation or job it
-- came from. Rows written before these columns existed have them empty.
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS step_id TEXT NOT NULL DEFAULT '';
