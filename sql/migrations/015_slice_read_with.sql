-- 015: how each slice went on the wire, in what the spec does not show: the wire name of each parameter it sent, the
-- array encoding when it sent an array, the first page's number when it paged (src/api/read-settings.ts). A change of
-- api.params left no trace: days loaded under a wrong name, which the API ignored for its own default, stayed
-- complete after the fix, and a sync re-read only its lookback. Null for slices loaded before this migration.
ALTER TABLE _sync_state ADD COLUMN read_with VARCHAR;
