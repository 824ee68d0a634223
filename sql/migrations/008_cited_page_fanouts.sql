-- 008: the searches that led answers to cite one of the brand's tracked pages (endpoint 15 asked by `url`), per
-- page and the window they were requested for (stream cited_page_fanouts, src/streams/cited-page-fanouts.ts).
-- `url` is the tracked page's URL as the API spelled it; join tracked_urls on (brand_id, url).
CREATE TABLE cited_page_fanouts (
  brand_id       BIGINT NOT NULL,
  url            VARCHAR NOT NULL,
  window_start   DATE NOT NULL,
  window_end     DATE NOT NULL,
  id             BIGINT NOT NULL,
  query          VARCHAR,
  conversations  INTEGER,
  relevance      DOUBLE,
  _extra         JSON,
  _synced_at     TIMESTAMPTZ NOT NULL,
  _run_id        VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, url, window_start, window_end, id)
);
