-- A call may wait for a person's approval before it runs (issue 27): three more states,
-- `awaiting-approval`, `approved` and `denied` (wit/ledger.wit), in the state's CHECK
-- constraint (the name PostgreSQL gave the column's constraint).
ALTER TABLE oncely.effects DROP CONSTRAINT IF EXISTS effects_state_check;
ALTER TABLE oncely.effects ADD CONSTRAINT effects_state_check
    CHECK (state IN ('pending', 'done', 'failed', 'in-doubt', 'escalated', 'awaiting-approval', 'approved', 'denied'));
