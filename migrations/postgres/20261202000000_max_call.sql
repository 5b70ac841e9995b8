-- The longest a tool call may be in flight (ms), fixed at claim from the policy's `maxCallMs`
-- (`max-call-ms` in wit/ledger.wit): a reconciler's "did not happen" is believed only once the
-- attempt's last possible start plus this much has passed. Rows written before this column
-- existed get the core's default, 30 s.
ALTER TABLE oncely.effects ADD COLUMN IF NOT EXISTS max_call_ms BIGINT NOT NULL DEFAULT 30000;
