-- 018: schema drift and promoted fields (docs/schema-drift.md).
-- _schema_drift: what the API sent that the spec does not show, first recorded by the run that finalized after it
-- loaded it, so a field is told of once however often the process restarts (src/warehouse/schema-drift.ts).
--   kind 'field': a key of a table's _extra; 'enum': a value outside the spec's list; 'engine': an engine or model.
CREATE TABLE _schema_drift (
  table_name     VARCHAR NOT NULL,
  kind           VARCHAR NOT NULL,
  name           VARCHAR NOT NULL,      -- the field, or the column holding the value
  "value"        VARCHAR NOT NULL,      -- '' for a field; the enum value or engine otherwise
  first_seen     TIMESTAMPTZ NOT NULL,
  last_seen      TIMESTAMPTZ NOT NULL,
  first_run_id   VARCHAR NOT NULL,
  last_run_id    VARCHAR NOT NULL,
  row_count      BIGINT NOT NULL,       -- rows of the table holding it when last seen
  example        VARCHAR,               -- one value as JSON text, at most 200 characters
  looks_like     VARCHAR,               -- the DuckDB type its values fit (fields only)
  PRIMARY KEY (table_name, kind, name, "value")
);

-- _promoted_fields: columns sync.promote added, filled from _extra. A row stays when the setting is removed; the
-- column and its data stay too.
CREATE TABLE _promoted_fields (
  table_name   VARCHAR NOT NULL,
  field        VARCHAR NOT NULL,
  data_type    VARCHAR NOT NULL,
  promoted_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (table_name, field)
);
