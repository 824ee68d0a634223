import type { RecordSchema } from '../api/validate.js';

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
