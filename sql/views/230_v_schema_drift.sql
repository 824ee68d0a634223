-- v_schema_drift: what the API sent that the spec does not show, per table (docs/schema-drift.md).
-- Grain: one row per table_name, kind, name, value.
-- Columns:
--   table_name        the table holding it (docs/tables.md names each table's stream)
--   kind              'field': a key of the table's _extra column; 'enum': a value outside the spec's list;
--                     'engine': an engine or model identifier (the spec omits their literal strings)
--   name              the field, or the column holding the value
--   value             '' for a field; the enum value or the engine otherwise
--   first_seen, last_seen   when the runs that finalized first and last saw it
--   row_count         rows of the table holding it when it was last seen
--   example           one value of a field as JSON text (at most 200 characters)
--   looks_like        the DuckDB type a field's values fit, as sync.promote takes it
--   is_new            false for the engines the first run to read the table learned; true for everything else
--   promoted_as       the type sync.promote gave the field a column with, NULL when it has none
-- Source: _schema_drift, written when a run finalizes; _promoted_fields.
CREATE OR REPLACE VIEW v_schema_drift AS
SELECT d.table_name, d.kind, d.name, d."value", d.first_seen, d.last_seen, d.row_count, d.example, d.looks_like,
       d.kind <> 'engine' OR d.first_seen > min(d.first_seen) OVER (PARTITION BY d.table_name, d.kind) AS is_new,
       p.data_type AS promoted_as
FROM _schema_drift d
LEFT JOIN _promoted_fields p ON d.kind = 'field' AND p.table_name = d.table_name AND p.field = d.name;
