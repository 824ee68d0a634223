-- 016: the warehouse's identity. A random id made with the file (for files made before this migration: when it is
-- applied), so a Redis prefix can record which file its committed slices are in and a writer that opens any other
-- file at the same path (another disk, a new empty file) refuses it (src/engine/writer/prefix-warehouse.ts). One row.
CREATE TABLE _warehouse (
  id          VARCHAR NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
);
INSERT INTO _warehouse (id) VALUES (CAST(uuid() AS VARCHAR));
