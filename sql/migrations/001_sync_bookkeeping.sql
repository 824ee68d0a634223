-- 001: the sync's own bookkeeping. Runs, the state of every slice, the incremental cursors and the records
-- the API sent that failed validation. The migrator's ledger (_migrations) is created by the migrator itself.

-- One row per sync / backfill / scheduled run; counters are summed from the slices as they load.
CREATE TABLE _sync_runs (
  run_id        VARCHAR PRIMARY KEY,
  kind          VARCHAR NOT NULL DEFAULT 'sync',      -- sync | backfill | scheduled
  brands        BIGINT[],
  streams       VARCHAR[],
  window_start  DATE,
  window_end    DATE,
  started_at    TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
  finished_at   TIMESTAMPTZ,
  status        VARCHAR NOT NULL DEFAULT 'running',   -- running | complete | partial | failed | cancelled
  slices        BIGINT NOT NULL DEFAULT 0,
  requests      BIGINT NOT NULL DEFAULT 0,
  "rows"        BIGINT NOT NULL DEFAULT 0,
  rejects       BIGINT NOT NULL DEFAULT 0,
  errors        BIGINT NOT NULL DEFAULT 0,
  retries       BIGINT NOT NULL DEFAULT 0,
  rate_limited  BIGINT NOT NULL DEFAULT 0
);

-- One row per brand, stream and slice; written in the same transaction as the slice's rows.
CREATE TABLE _sync_state (
  brand_id      BIGINT NOT NULL,
  stream        VARCHAR NOT NULL,
  slice_key     VARCHAR NOT NULL,
  "day"         DATE,
  status        VARCHAR NOT NULL,                     -- complete | incomplete | failed
  "rows"        BIGINT NOT NULL DEFAULT 0,
  total_rows    BIGINT,
  attempts      INTEGER NOT NULL DEFAULT 0,
  requests      INTEGER NOT NULL DEFAULT 0,
  last_error    VARCHAR,
  error_code    VARCHAR,
  request_id    VARCHAR,
  run_id        VARCHAR,
  completed_at  TIMESTAMPTZ,                          -- the last time the slice loaded complete
  updated_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (brand_id, stream, slice_key)
);

-- The incremental schedule's position per brand and stream; moved only by incremental runs.
CREATE TABLE _sync_cursors (
  brand_id      BIGINT NOT NULL,
  stream        VARCHAR NOT NULL,
  through_day   DATE NOT NULL,
  run_id        VARCHAR,
  updated_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (brand_id, stream)
);

-- Records that failed validation, with their raw JSON; a re-load of a slice replaces that slice's rejects.
CREATE TABLE _rejected_records (
  id            VARCHAR PRIMARY KEY,                  -- brand/stream/slice/ordinal: stable across replays
  run_id        VARCHAR,
  brand_id      BIGINT NOT NULL,
  stream        VARCHAR NOT NULL,
  slice_key     VARCHAR NOT NULL,
  source        VARCHAR,
  raw           JSON,
  issues        VARCHAR[],
  rejected_at   TIMESTAMPTZ NOT NULL
);
