import { createHash, randomUUID } from 'node:crypto';

/**
 * The idempotency value of a write, of its content, brand and apply session: a retry in the session carries the same
 * value, so the API replays its first answer; another apply sends another value, so an undone write is written again.
 */
export function contentIdempotencyKey(session: string, method: string, path: string, body: unknown): string {
  return `bvsync-${sha256(`${session}\n${method} ${path}\n${canonicalJson(body ?? null)}`)}`;
}

/**
 * The idempotency value of a write no read can compare against (persona and tag changes): of its method, path and
 * body alone (test/manage/plan-apply.int.test.ts, "a second apply sends persona and tag changes again").
 */
export function stableIdempotencyKey(method: string, path: string, body: unknown): string {
  return `bvsync-same-${sha256(`${method} ${path}\n${canonicalJson(body ?? null)}`)}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A value for one dry run alone. A dry run must not share a value with an earlier one of the same content: the API
 * would replay the earlier answer, and a plan would report the brand as it was then.
 */
export function freshIdempotencyKey(): string {
  return `bvsync-dry-${randomUUID()}`;
}

/** JSON with object keys sorted, so the same content always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
