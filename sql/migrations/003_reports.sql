-- 003: day-by-day reports: visibility by topic and scenario (spec endpoint 16), citations over time (17),
-- cited domain details (18) and product ranking (19). Each report is fetched for one UTC day, so each row
-- is a fact of one day and any window can be aggregated. Ratios keep their numerators beside them.

-- Topics and scenarios as the visibility report names them (the only read that does).
CREATE TABLE topics (
  brand_id       BIGINT NOT NULL,
  id             BIGINT NOT NULL,
  name           VARCHAR,
  last_seen_day  DATE,
  _extra         JSON,
  _synced_at     TIMESTAMPTZ NOT NULL,
  _run_id        VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, id)
);

CREATE TABLE scenarios (
  brand_id       BIGINT NOT NULL,
  id             BIGINT NOT NULL,
  topic_id       BIGINT,
  "text"         VARCHAR,
  last_seen_day  DATE,
  _extra         JSON,
  _synced_at     TIMESTAMPTZ NOT NULL,
  _run_id        VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, id)
);

-- The own brand's visibility per topic and day. mentioned_conversations = round(visibility x conversations),
-- so sum(mentioned_conversations) / sum(conversations) is the exact visibility of any window.
CREATE TABLE visibility_topic_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  topic_id                BIGINT NOT NULL,
  conversations           INTEGER,
  mentioned_conversations INTEGER,
  visibility              DOUBLE,
  change                  DOUBLE,
  ci_lower                DOUBLE,
  ci_upper                DOUBLE,
  share_of_voice          DOUBLE,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", topic_id)
);

-- Every brand the report lists for a topic and day: the own brand and the five competitors with the highest value.
CREATE TABLE visibility_topic_brand_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  topic_id                BIGINT NOT NULL,
  brand_name              VARCHAR NOT NULL,
  website                 VARCHAR,
  is_own_brand            BOOLEAN,
  conversations           INTEGER,
  mentioned_conversations INTEGER,
  visibility              DOUBLE,
  change                  DOUBLE,
  ci_lower                DOUBLE,
  ci_upper                DOUBLE,
  share_of_voice          DOUBLE,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", topic_id, brand_name)
);

CREATE TABLE visibility_scenario_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  scenario_id             BIGINT NOT NULL,
  topic_id                BIGINT,
  conversations           INTEGER,
  mentioned_conversations INTEGER,
  visibility              DOUBLE,
  change                  DOUBLE,
  ci_lower                DOUBLE,
  ci_upper                DOUBLE,
  share_of_voice          DOUBLE,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", scenario_id)
);

CREATE TABLE visibility_scenario_brand_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  scenario_id             BIGINT NOT NULL,
  brand_name              VARCHAR NOT NULL,
  topic_id                BIGINT,
  website                 VARCHAR,
  is_own_brand            BOOLEAN,
  conversations           INTEGER,
  mentioned_conversations INTEGER,
  visibility              DOUBLE,
  change                  DOUBLE,
  ci_lower                DOUBLE,
  ci_upper                DOUBLE,
  share_of_voice          DOUBLE,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", scenario_id, brand_name)
);

-- Citation series with period=day. dimension: all | ownership | sentiment | content_type | domain;
-- value is the ownership / sentiment / content type / domain of the series ('' for all).
CREATE TABLE citation_daily (
  brand_id     BIGINT NOT NULL,
  "day"        DATE NOT NULL,
  dimension    VARCHAR NOT NULL,
  "value"      VARCHAR NOT NULL,
  occurrences  INTEGER,
  change       DOUBLE,
  _extra       JSON,
  _synced_at   TIMESTAMPTZ NOT NULL,
  _run_id      VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", dimension, "value")
);

-- The report's summary by ownership, for the window it was requested for.
CREATE TABLE citation_ownership_summary (
  brand_id      BIGINT NOT NULL,
  window_start  DATE NOT NULL,
  window_end    DATE NOT NULL,
  ownership     VARCHAR NOT NULL,
  label         VARCHAR,
  occurrences   INTEGER,
  share         DOUBLE,
  _extra        JSON,
  _synced_at    TIMESTAMPTZ NOT NULL,
  _run_id       VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, window_start, window_end, ownership)
);

-- Domain details fetched for one day (a 404 means no citation that day: no rows).
CREATE TABLE domain_daily (
  brand_id           BIGINT NOT NULL,
  domain             VARCHAR NOT NULL,
  "day"              DATE NOT NULL,
  is_first_party     BOOLEAN,
  occurrences        INTEGER,
  cited_occurrences  INTEGER,
  _extra             JSON,
  _synced_at         TIMESTAMPTZ NOT NULL,
  _run_id            VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, domain, "day")
);

CREATE TABLE domain_model_daily (
  brand_id     BIGINT NOT NULL,
  domain       VARCHAR NOT NULL,
  "day"        DATE NOT NULL,
  model        VARCHAR NOT NULL,
  occurrences  INTEGER,
  _extra       JSON,
  _synced_at   TIMESTAMPTZ NOT NULL,
  _run_id      VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, domain, "day", model)
);

CREATE TABLE domain_topic_daily (
  brand_id     BIGINT NOT NULL,
  domain       VARCHAR NOT NULL,
  "day"        DATE NOT NULL,
  topic_id     BIGINT NOT NULL,
  name         VARCHAR,
  occurrences  INTEGER,
  _extra       JSON,
  _synced_at   TIMESTAMPTZ NOT NULL,
  _run_id      VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, domain, "day", topic_id)
);

CREATE TABLE domain_scenario_daily (
  brand_id     BIGINT NOT NULL,
  domain       VARCHAR NOT NULL,
  "day"        DATE NOT NULL,
  scenario_id  BIGINT NOT NULL,
  "text"       VARCHAR,
  occurrences  INTEGER,
  _extra       JSON,
  _synced_at   TIMESTAMPTZ NOT NULL,
  _run_id      VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, domain, "day", scenario_id)
);

-- Product ranking of one day, per metric (visibility | recommendation) and subject (brand | competitor).
-- price stays text: the spec says string.
CREATE TABLE product_ranking_daily (
  brand_id        BIGINT NOT NULL,
  "day"           DATE NOT NULL,
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
  PRIMARY KEY (brand_id, "day", metric, subject, product_id)
);

CREATE TABLE product_ranking_shopping_daily (
  brand_id                BIGINT NOT NULL,
  "day"                   DATE NOT NULL,
  metric                  VARCHAR NOT NULL,
  subject                 VARCHAR NOT NULL,
  shopping_conversations  INTEGER,
  total_rows              INTEGER,
  _extra                  JSON,
  _synced_at              TIMESTAMPTZ NOT NULL,
  _run_id                 VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day", metric, subject)
);
