import type { RecordSchema } from '../api/validate.js';
import { utcDayOf } from '../days.js';

/**
 * The `_extra` column of a record: the fields its schema does not know, as they came (null when none), so none is ever
 * dropped. Called for every record and nested object: it builds nothing unless a field is unknown.
 */
export function extraOf(schema: RecordSchema, record: Record<string, unknown>): Record<string, unknown> | null {
  const shape = schema.shape;
  let extra: Record<string, unknown> | null = null;
  for (const key in record) {
    if (Object.hasOwn(record, key) && !Object.hasOwn(shape, key)) (extra ??= {})[key] = record[key];
  }
  return extra;
}

/**
 * The UTC day of a validated ISO 8601 timestamp (src/api/schemas.ts `timestamp`): one in UTC starts with its day, so
 * only an offset needs a Date.
 */
export function dayOf(timestamp: string): string {
  if (
    timestamp.length > 10 &&
    timestamp.charCodeAt(10) === 0x54 /* T */ &&
    timestamp.charCodeAt(timestamp.length - 1) === 0x5a /* Z */
  ) {
    return timestamp.slice(0, 10);
  }
  return utcDayOf(new Date(timestamp));
}
