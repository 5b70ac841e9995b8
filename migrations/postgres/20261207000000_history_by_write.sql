-- Each write appends its own history record (`row-write.history`, wit/effect.wit): the insert
-- sets `history` to the written row's record and an update the core marked appends it, in the
-- write's own statement. The triggers restated the core's rule of which updates are kept, and
-- cost a PL/pgSQL call per write (docs/performance.md). Rows and the view `oncely.history` are
-- unchanged.
DROP TRIGGER IF EXISTS keep_history ON oncely.effects;
DROP TRIGGER IF EXISTS keep_history_on_update ON oncely.effects;
DROP FUNCTION IF EXISTS oncely.keep_history();
