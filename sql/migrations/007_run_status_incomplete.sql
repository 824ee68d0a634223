-- 007: one word for a run that finished with some slices not complete. `_sync_runs` said `partial` where the CLI,
-- Redis and `_sync_state` say `incomplete`; every status word is now defined once (src/vocabulary.ts):
-- _sync_runs.status is running | complete | incomplete | failed | cancelled.
UPDATE _sync_runs SET status = 'incomplete' WHERE status = 'partial';
