-- 002: answers of the engines (spec endpoint 13) and tracked URLs with their daily citation counts (endpoint 3).
-- Every data table carries brand_id, _extra (fields the schema does not know), _synced_at and _run_id.

-- One row per answer. day is the UTC day of date; topic_id is set when conversations are sliced by topic.
CREATE TABLE conversations (
  brand_id                BIGINT NOT NULL,
  id                      BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  "date"                  TIMESTAMPTZ NOT NULL,
  model                   VARCHAR,
  has_shopping            BOOLEAN,
  mentioned               BOOLEAN,
  recommended             BOOLEAN,
  "position"              INTEGER,
  recommendation_position INTEGER,
  fact_check_passed       BOOLEAN,
  topic_id                BIGINT,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, id)
);

-- The brands an answer names, in order (ordinal 0 first).
CREATE TABLE conversation_brands (
  brand_id        BIGINT NOT NULL,
  conversation_id BIGINT NOT NULL,
  ordinal         INTEGER NOT NULL,
  "day"           DATE NOT NULL,
  name            VARCHAR,
  website         VARCHAR,
  "position"      INTEGER,
  is_own_brand    BOOLEAN,
  _extra          JSON,
  _synced_at      TIMESTAMPTZ NOT NULL,
  _run_id         VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, conversation_id, ordinal)
);

CREATE TABLE tracked_urls (
  brand_id    BIGINT NOT NULL,
  id          BIGINT NOT NULL,
  url         VARCHAR,
  title       VARCHAR,
  created_at  TIMESTAMPTZ,
  group_id    BIGINT,
  group_name  VARCHAR,
  _extra      JSON,
  _synced_at  TIMESTAMPTZ NOT NULL,
  _run_id     VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, id)
);

-- The tracked URLs report fetched for one day: citations / conversations of that day.
CREATE TABLE tracked_url_daily (
  brand_id        BIGINT NOT NULL,
  tracked_url_id  BIGINT NOT NULL,
  "day"           DATE NOT NULL,
  citations       INTEGER,
  conversations   INTEGER,
  citation_rate   DOUBLE,
  first_cited     TIMESTAMPTZ,
  _extra          JSON,
  _synced_at      TIMESTAMPTZ NOT NULL,
  _run_id         VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, tracked_url_id, "day")
);

-- The report's info block of that day: citations of all pages together, cited pages, total_rows.
CREATE TABLE tracked_url_daily_totals (
  brand_id    BIGINT NOT NULL,
  "day"       DATE NOT NULL,
  citations   INTEGER,
  cited_urls  INTEGER,
  total_rows  INTEGER,
  _extra      JSON,
  _synced_at  TIMESTAMPTZ NOT NULL,
  _run_id     VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day")
);
