-- 013: the citations report's own total of the window a run asked for (spec endpoint 17, info.summary.occurrences),
-- kept beside what it should equal (the days of citation_daily's series of all in that window), so the warehouse can
-- be reconciled with the API's dashboard. Written, like citation_ownership_summary, by the slice of the series of all;
-- windows before this migration have no row until they are read again.
CREATE TABLE citation_window_totals (
  brand_id      BIGINT NOT NULL,
  window_start  DATE NOT NULL,
  window_end    DATE NOT NULL,
  occurrences   INTEGER,
  total_rows    INTEGER,
  _extra        JSON,
  _synced_at    TIMESTAMPTZ NOT NULL,
  _run_id       VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, window_start, window_end)
);
