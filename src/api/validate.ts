import type { z } from 'zod';
import type { RejectedRecord } from '../warehouse/load/slice-batch.js';

/** A record that failed its schema: its raw JSON, the readable issues, and the page it came from. */
export type Rejection = RejectedRecord;

/** A loose object schema: its `shape` names the fields bvsync knows. */
export type RecordSchema = z.ZodObject<z.ZodRawShape>;

/**
 * Validates records one by one, so one bad record is quarantined and the rest of its page still loads
 * (item by item is also the faster way in zod 4).
 */
export function validateRecords<T>(
  schema: z.ZodType<T>,
  data: readonly unknown[],
  source: string,
): { records: T[]; rejects: Rejection[] } {
  const records: T[] = [];
  const rejects: Rejection[] = [];
  for (const raw of data) {
    const result = schema.safeParse(raw);
    if (result.success) records.push(result.data);
    else rejects.push({ raw, issues: describeZodIssues(result.error), source });
  }
  return { records, rejects };
}

/** `path: message` per issue, e.g. `brands.0.position: Invalid input: expected int, received string`. */
export function describeZodIssues(error: z.ZodError): string[] {
  return error.issues.map(
    (issue) =>
      `${issue.path.length ? issue.path.map(String).join('.') : '(record)'}: ${pastSafeIntegers(issue) ?? issue.message}`,
  );
}

/** An integer past 2^53 was rounded when the JSON was parsed, so the message says so instead of "Too big". */
function pastSafeIntegers(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'too_big' && issue.code !== 'too_small') return undefined;
  const { maximum, minimum } = issue as { maximum?: unknown; minimum?: unknown };
  const bound = Number(maximum ?? minimum);
  if (Math.abs(bound) !== Number.MAX_SAFE_INTEGER) return undefined;
  return `an integer past ±2^53 (${Number.MAX_SAFE_INTEGER}), which JSON numbers in JavaScript cannot hold exactly: bvsync cannot store it, and its copy in _rejected_records is rounded`;
}
