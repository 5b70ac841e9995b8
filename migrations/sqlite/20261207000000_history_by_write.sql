-- Each write appends its own history record (`row-write.history`, wit/effect.wit): the insert
-- sets `history` to the written row's record and an update the core marked appends it, in the
-- write's own statement. The triggers restated the core's rule of which updates are kept; they
-- also updated the row a second time in every write (docs/performance.md counts what that
-- cost). Rows and the view `oncely_history` are unchanged.
DROP TRIGGER IF EXISTS oncely_history_on_insert;
DROP TRIGGER IF EXISTS oncely_history_on_update;
