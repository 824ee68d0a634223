-- 014: the engines filter a slice sent, beside the engines its answer's echo says were applied. An echo alone could
-- not tell the visibility report's default ("the engines of the brand") from engines api.engines asked for, so
-- v_engines called every engine api.engines named a brand engine. Null when the slice sent none, and for slices
-- loaded before this migration.
ALTER TABLE _slice_queries ADD COLUMN sent_engines VARCHAR[];
