-- 017: the rounds of `sync.heal` (docs/healing.md), one per scheduled run it followed. Disagreements are written
-- `brand|family|day`; `persisting` is what the round leaves remembered, so the next round does not re-read it again.
CREATE TABLE _heal_runs (
  heal_id             VARCHAR PRIMARY KEY,      -- the scheduled run the round followed
  read_run_id         VARCHAR,                  -- the run of kind `heal` that re-read, when there was one
  window_start        DATE NOT NULL,
  window_end          DATE NOT NULL,
  families            VARCHAR[] NOT NULL,       -- families with a disagreement before the re-read
  disagreeing_before  VARCHAR[] NOT NULL,
  reread              VARCHAR[] NOT NULL,       -- what the re-read asked for (within heal.maxReadCalls)
  left_unread         VARCHAR[] NOT NULL,       -- disagreeing, not re-read: over the read budget, or remembered
  unresolved          VARCHAR[] NOT NULL,       -- windows the comparison's budget left unsplit, `brand|family|from..to`
  disagreeing_after   VARCHAR[],                -- after the re-read, compared again; null until then
  persisting          VARCHAR[] NOT NULL,       -- re-read and still disagreeing, now or in an earlier round
  reported            VARCHAR[] NOT NULL,       -- newly persisting, told of by this round
  verify_requests     INTEGER NOT NULL DEFAULT 0,
  read_requests       INTEGER NOT NULL DEFAULT 0,
  status              VARCHAR NOT NULL,         -- reading | agree | healed | disagree
  started_at          TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
  finished_at         TIMESTAMPTZ
);
