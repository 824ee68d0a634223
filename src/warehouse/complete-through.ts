/**
 * The SQL of the last past day a `_sync_state` row holds complete, as of `today` (an SQL DATE expression); NULL when
 * none. Freshness in `status` and in the metrics both use it, so every stream has one, whatever its slices are:
 * - a day slice: its day, when complete and before today (today is partial until it ends, UTC);
 * - a window slice (key ending `from..to`): its last day, but no later than the day before it was last read complete;
 * - a list read whole (a full refresh): the day before it was last read complete.
 * Proved by test/warehouse/bookkeeping.int.test.ts, "gives every kind of slice a freshness".
 */
export function completeThroughDay(today: string): string {
  const readDay = `(DATE '1970-01-01' + CAST(floor(epoch(completed_at) / 86400) AS INTEGER))`;
  const windowTo = `try_cast(nullif(regexp_extract(slice_key, '\\.\\.(\\d{4}-\\d{2}-\\d{2})$', 1), '') AS DATE)`;
  return `(CASE
    WHEN "day" IS NOT NULL THEN CASE WHEN status = 'complete' AND "day" < ${today} THEN "day" END
    WHEN completed_at IS NULL THEN NULL
    ELSE least(coalesce(${windowTo}, ${today}), ${readDay} - 1, ${today} - 1)
  END)`;
}
