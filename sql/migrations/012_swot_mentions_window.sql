-- 012: swot_statements.mentions counts the window a run read (spec endpoint 20: info.statement.mentions, for the
-- requested range), and the row, merged by statement, did not say which one. The window is kept beside it; rows
-- loaded before this migration have NULL until their statement is read again.
ALTER TABLE swot_statements ADD COLUMN window_start DATE;
ALTER TABLE swot_statements ADD COLUMN window_end DATE;
