-- 009: which engines every number covers (issue #14). The spec gives different engine defaults per endpoint ("the
-- engines of the brand" for visibility and product ranking, "each engine" for the rest) and omits the engines'
-- literal strings, so bvsync keeps what the API says it applied, and breaks reports down by engine.

-- The query a slice's answer says was applied (`info.query`: visibility by topic, citations report, domain
-- detail), written in the slice's own transaction, so it always describes the rows the slice holds.
-- engines: the echo's engine list, the engines each row of that slice covers.
CREATE TABLE _slice_queries (
  brand_id     BIGINT NOT NULL,
  stream       VARCHAR NOT NULL,
  slice_key    VARCHAR NOT NULL,
  "day"        DATE,                -- the slice's day; null for a window slice
  range_start  DATE,                -- the days the slice read
  range_end    DATE,
  query        JSON NOT NULL,
  engines      VARCHAR[],
  _synced_at   TIMESTAMPTZ NOT NULL,
  _run_id      VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, stream, slice_key)
);

-- Visibility by topic and scenario (spec endpoint 16) for one day and ONE engine (engines=[engine]): the
-- stream visibility_by_engine. Same measures as visibility_topic_daily and its siblings; change_vs_previous_day
-- is the API's change of a one-day request (against the day before), named for what it is.
CREATE TABLE visibility_topic_engine_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  engine                  VARCHAR NOT NULL,
  topic_id                BIGINT NOT NULL,
  conversations           INTEGER,
  mentioned_conversations INTEGER,
  visibility              DOUBLE,
  days                    INTEGER,
  change_vs_previous_day  DOUBLE,
  ci_lower                DOUBLE,
  ci_upper                DOUBLE,
  share_of_voice          DOUBLE,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", engine, topic_id)
);

CREATE TABLE visibility_topic_brand_engine_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  engine                  VARCHAR NOT NULL,
  topic_id                BIGINT NOT NULL,
  brand_name              VARCHAR NOT NULL,
  website                 VARCHAR,
  is_own_brand            BOOLEAN,
  conversations           INTEGER,
  mentioned_conversations INTEGER,
  visibility              DOUBLE,
  change_vs_previous_day  DOUBLE,
  ci_lower                DOUBLE,
  ci_upper                DOUBLE,
  share_of_voice          DOUBLE,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", engine, topic_id, brand_name)
);

CREATE TABLE visibility_scenario_engine_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  engine                  VARCHAR NOT NULL,
  scenario_id             BIGINT NOT NULL,
  topic_id                BIGINT,
  conversations           INTEGER,
  mentioned_conversations INTEGER,
  visibility              DOUBLE,
  days                    INTEGER,
  change_vs_previous_day  DOUBLE,
  ci_lower                DOUBLE,
  ci_upper                DOUBLE,
  share_of_voice          DOUBLE,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", engine, scenario_id)
);

CREATE TABLE visibility_scenario_brand_engine_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  engine                  VARCHAR NOT NULL,
  scenario_id             BIGINT NOT NULL,
  brand_name              VARCHAR NOT NULL,
  topic_id                BIGINT,
  website                 VARCHAR,
  is_own_brand            BOOLEAN,
  conversations           INTEGER,
  mentioned_conversations INTEGER,
  visibility              DOUBLE,
  change_vs_previous_day  DOUBLE,
  ci_lower                DOUBLE,
  ci_upper                DOUBLE,
  share_of_voice          DOUBLE,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", engine, scenario_id, brand_name)
);

-- Product ranking (spec endpoint 19) of one day and ONE engine: the stream product_ranking_by_engine.
CREATE TABLE product_ranking_engine_daily (
  brand_id        BIGINT NOT NULL,
  "day"           DATE NOT NULL,
  engine          VARCHAR NOT NULL,
  metric          VARCHAR NOT NULL,
  subject         VARCHAR NOT NULL,
  product_id      BIGINT NOT NULL,
  "rank"          INTEGER,
  label           VARCHAR,
  title           VARCHAR,
  category        VARCHAR,
  price           VARCHAR,
  rating          DOUBLE,
  reviews         INTEGER,
  visibility      DOUBLE,
  recommendation  DOUBLE,
  image_url       VARCHAR,
  ci_lower        DOUBLE,
  ci_upper        DOUBLE,
  _extra          JSON,
  _synced_at      TIMESTAMPTZ NOT NULL,
  _run_id         VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", engine, metric, subject, product_id)
);

CREATE TABLE product_ranking_shopping_engine_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  engine                  VARCHAR NOT NULL,
  metric                  VARCHAR NOT NULL,
  subject                 VARCHAR NOT NULL,
  shopping_conversations  INTEGER,
  total_rows              INTEGER,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", engine, metric, subject)
);
