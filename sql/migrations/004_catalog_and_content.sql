-- 004: per-brand lists synced in full (competitors 7, templates 10, articles 11, content analyses 12), the
-- searches behind citations (15) and phrases (14), and SWOT statement answers (20).

CREATE TABLE competitors (
  brand_id    BIGINT NOT NULL,
  id          BIGINT NOT NULL,
  name        VARCHAR,
  website     VARCHAR,
  is_actual   BOOLEAN,                 -- true: confirmed by the account; false: suggested by the platform
  _extra      JSON,
  _synced_at  TIMESTAMPTZ NOT NULL,
  _run_id     VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, id)
);

CREATE TABLE templates (
  brand_id      BIGINT NOT NULL,
  id            BIGINT NOT NULL,
  title         VARCHAR,
  "type"        VARCHAR,               -- brief | article
  article_type  VARCHAR,
  content       VARCHAR,
  created_at    TIMESTAMPTZ,
  updated_at    TIMESTAMPTZ,
  _extra        JSON,
  _synced_at    TIMESTAMPTZ NOT NULL,
  _run_id       VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, id)
);

CREATE TABLE articles (
  brand_id           BIGINT NOT NULL,
  id                 BIGINT NOT NULL,
  title              VARCHAR,
  slug               VARCHAR,
  "language"         VARCHAR,
  "type"             VARCHAR,
  version            INTEGER,
  status             VARCHAR,
  generation_status  VARCHAR,
  topic_ids          INTEGER[],
  scenario_ids       INTEGER[],
  created_at         TIMESTAMPTZ,
  updated_at         TIMESTAMPTZ,
  _extra             JSON,
  _synced_at         TIMESTAMPTZ NOT NULL,
  _run_id            VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, id)
);

-- The article list's counters as seen on the day of the sync.
CREATE TABLE article_status_daily (
  brand_id     BIGINT NOT NULL,
  "day"        DATE NOT NULL,
  draft        INTEGER,
  in_progress  INTEGER,
  published    INTEGER,
  total_rows   INTEGER,
  _extra       JSON,
  _synced_at   TIMESTAMPTZ NOT NULL,
  _run_id      VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, "day")
);

CREATE TABLE content_analyses (
  brand_id     BIGINT NOT NULL,
  id           BIGINT NOT NULL,
  kind         VARCHAR,
  status       VARCHAR,
  step         VARCHAR,
  created_at   TIMESTAMPTZ,
  updated_at   TIMESTAMPTZ,
  article_id   BIGINT,
  title        VARCHAR,
  topic_id     BIGINT,
  topic_name   VARCHAR,
  url          VARCHAR,
  _extra       JSON,
  _synced_at   TIMESTAMPTZ NOT NULL,
  _run_id      VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, id)
);

-- The searches that led answers to a cited domain or page, for the window they were requested for.
CREATE TABLE fanouts_cited (
  brand_id       BIGINT NOT NULL,
  target_kind    VARCHAR NOT NULL,     -- domain | url
  target         VARCHAR NOT NULL,
  window_start   DATE NOT NULL,
  window_end     DATE NOT NULL,
  id             BIGINT NOT NULL,
  query          VARCHAR,
  conversations  INTEGER,
  relevance      DOUBLE,
  _extra         JSON,
  _synced_at     TIMESTAMPTZ NOT NULL,
  _run_id        VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, target_kind, target, window_start, window_end, id)
);

CREATE TABLE swot_answers (
  brand_id         BIGINT NOT NULL,
  statement_id     BIGINT NOT NULL,
  conversation_id  BIGINT NOT NULL,
  "date"           TIMESTAMPTZ,
  "day"            DATE,
  "text"           VARCHAR,
  model            VARCHAR,
  "type"           VARCHAR,            -- strengths | weaknesses | opportunities | threats
  _extra           JSON,
  _synced_at       TIMESTAMPTZ NOT NULL,
  _run_id          VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, statement_id, conversation_id)
);

CREATE TABLE swot_statements (
  brand_id      BIGINT NOT NULL,
  statement_id  BIGINT NOT NULL,
  "type"        VARCHAR,
  "text"        VARCHAR,
  mentions      INTEGER,
  _extra        JSON,
  _synced_at    TIMESTAMPTZ NOT NULL,
  _run_id       VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, statement_id)
);

CREATE TABLE fanouts_by_phrase (
  brand_id    BIGINT NOT NULL,
  phrase      VARCHAR NOT NULL,
  id          BIGINT NOT NULL,
  query       VARCHAR,
  _extra      JSON,
  _synced_at  TIMESTAMPTZ NOT NULL,
  _run_id     VARCHAR NOT NULL,
  PRIMARY KEY (brand_id, phrase, id)
);
