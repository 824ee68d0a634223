import { readHeaderTime } from './rate/header-time.js';

/**
 * `Retry-After` is delta-seconds or an HTTP date (RFC 9110, section 10.2.3), or a Unix time some APIs send
 * (header-time.ts). Waits are bounded so a broken header neither parks a key for a day nor retries at once.
 */

/** The wait used when a 429 carries no usable `Retry-After`. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;
/** The longest wait bvsync accepts from one `Retry-After` or rate-limit reset; longer values are clamped to this. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;
/** The shortest wait: after a 429, `0` or a past date is not "at once" (and Redis refuses a wait of 0). */
export const MIN_RETRY_AFTER_MS = 1_000;

/**
 * Milliseconds to wait according to a `Retry-After` value, or `undefined` when the value is missing or
 * unreadable. Waits are kept within `MIN_RETRY_AFTER_MS` and `MAX_RETRY_AFTER_MS`.
 */
export function parseRetryAfter(
  value: string | string[] | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const ms = retryAfterUnbounded(value, now);
  return ms === undefined ? undefined : Math.min(Math.max(ms, MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);
}

/** The wait a `Retry-After` names, unbounded (a spent quota's hours); `undefined` when missing or unreadable. */
export function retryAfterUnbounded(
  value: string | string[] | null | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  const time = readHeaderTime(text, now);
  if (!time) return undefined;
  return Math.max(0, time.form === 'delta-seconds' ? Math.ceil(time.ms) : time.ms);
}

export interface BackoffOptions {
  /** The cap of the first wait (`api.retryBaseMs`, default 250). */
  baseMs: number;
  /** No wait is longer than this (`api.retryMaxMs`, default 20000). */
  maxMs: number;
}

/**
 * The wait before retry number `attempt` (1 = the first retry): exponential backoff with full jitter, a
 * uniform draw in [0, min(max, base * 2^(attempt-1))], so many failing workers do not retry in step.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const cap = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * cap);
}
