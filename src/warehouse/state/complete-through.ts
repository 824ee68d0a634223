/**
 * The SQL of the last past day a `_sync_state` row holds complete as of `today`, or NULL: a day slice's day, a window's
 * key's last `..to` (before its read), a list the day before its read (test/warehouse/bookkeeping.int.test.ts).
 */
export function completeThroughDay(today: string): string {
  const readDay = `(DATE '1970-01-01' + CAST(floor(epoch(completed_at) / 86400) AS INTEGER))`;
  const windowTo = `try_cast(nullif(regexp_extract(slice_key, '\\.\\.(\\d{4}-\\d{2}-\\d{2})(/[^/]*)?$', 1), '') AS DATE)`;
  return `(CASE
    WHEN "day" IS NOT NULL THEN CASE WHEN status = 'complete' AND "day" < ${today} THEN "day" END
    WHEN completed_at IS NULL THEN NULL
    ELSE least(coalesce(${windowTo}, ${today}), ${readDay} - 1, ${today} - 1)
  END)`;
}
