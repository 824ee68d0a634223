import { redactSecrets } from '../../log.js';
import { readHeaderTime, type HeaderTime } from './header-time.js';
import { MAX_RETRY_AFTER_MS } from '../retry-after.js';
/**
 * What an answer's headers say about the key's rate limit. The spec names none, so every form in use is read
 * (IETF drafts, `RateLimit-*`, `X-RateLimit-*`; resets by header-time.ts). Unreadable values go to `problems`.
 */

export interface RateLimitSignals {
  /** Requests per second of the most restrictive quota policy that names its window (of an hour at most). */
  policyPerSecond?: number;
  /** The header `policyPerSecond` was read from, as the API's documentation spells it (`RateLimit-Policy`). */
  policyBy?: StatedBy;
  /** A limit stated without its window (`RateLimit-Limit`, `X-RateLimit-Limit`, `limit=`): requests per window. */
  limit?: number;
  /** The header `limit` was read from (`X-RateLimit-Limit`, `RateLimit-Limit`, or `RateLimit` for its `limit=`). */
  limitBy?: StatedBy;
  /** Requests left in the current window. */
  remaining?: number;
  /** Milliseconds until the current window resets. */
  resetMs?: number;
  /** How much later than the real reset `resetMs` may be: its value's rounding to whole seconds (header-time.ts). */
  resetRoundingMs?: number;
  /** `header: value` of every value that could not be read. */
  problems: string[];
}

/** The headers that can state a limit, spelled as the drafts and the APIs' documentation spell them. */
export type StatedBy = 'RateLimit-Policy' | 'RateLimit' | 'RateLimit-Limit' | 'X-RateLimit-Limit';

export type HeaderBag = Record<string, string | string[] | undefined>;

/** A header's first value: undici gives a repeated header as a list. */
export function firstHeader(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads the rate-limit headers of one answer (names in lower case, as undici gives them). */
export function readRateLimitHeaders(headers: HeaderBag, now: number = Date.now()): RateLimitSignals {
  const signals: RateLimitSignals = { problems: [] };
  const value = (name: string): string | undefined => {
    const raw = headers[name];
    const text = Array.isArray(raw) ? raw.join(', ') : raw;
    return text?.trim() ? text.trim() : undefined;
  };
  const problem = (name: string, text: string) =>
    signals.problems.push(`${name}: ${JSON.stringify(redactSecrets(text).slice(0, 80))}`);
  const readCount = (name: string, use: (n: number) => void) => {
    const text = value(name);
    if (text === undefined) return;
    const n = count(text);
    if (n === undefined) problem(name, text);
    else use(n);
  };
  const readReset = (name: string) => {
    const text = value(name);
    if (text === undefined) return;
    const time = readHeaderTime(text, now);
    if (!time || time.ms > MAX_RETRY_AFTER_MS) return problem(name, text);
    if (signals.resetMs === undefined) setReset(time, signals);
  };
  const perSecond: number[] = [];

  const policy = value('ratelimit-policy');
  if (policy !== undefined) {
    const read = readPolicies(splitList(policy));
    if ((read.perSecond.length === 0 && read.skipped === 0) || read.bad) problem('ratelimit-policy', policy);
    perSecond.push(...read.perSecond);
    if (read.perSecond.length > 0) signals.policyBy = 'RateLimit-Policy';
  }

  const combined = value('ratelimit');
  if (combined !== undefined && !readCombined(combined, signals, now)) problem('ratelimit', combined);

  const limitHeader = value('ratelimit-limit');
  if (limitHeader !== undefined) {
    // Drafts 01-03 let the limit be followed by its policies: `10, 10;w=1, 50;w=60`.
    const [first = '', ...policies] = splitList(limitHeader);
    const limit = count(first.split(';')[0] ?? '');
    const read = readPolicies(policies);
    if (limit === undefined || read.bad) problem('ratelimit-limit', limitHeader);
    if (limit !== undefined && signals.limit === undefined)
      [signals.limit, signals.limitBy] = [limit, 'RateLimit-Limit'];
    perSecond.push(...read.perSecond);
    if (read.perSecond.length > 0) signals.policyBy ??= 'RateLimit-Limit';
  }
  readCount('ratelimit-remaining', (n) => (signals.remaining ??= n));
  readReset('ratelimit-reset');

  readCount('x-ratelimit-limit', (n) => {
    if (signals.limit === undefined) [signals.limit, signals.limitBy] = [n, 'X-RateLimit-Limit'];
  });
  readCount('x-ratelimit-remaining', (n) => (signals.remaining ??= n));
  readReset('x-ratelimit-reset');

  if (perSecond.length > 0) signals.policyPerSecond = Math.min(...perSecond);
  return signals;
}

/** Splits a header list on commas outside quoted strings. */
function splitList(text: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (char === ',' && !quoted) {
      items.push(current.trim());
      current = '';
    } else current += char;
  }
  items.push(current.trim());
  return items.filter((item) => item.length > 0);
}

/** `item;key=value;key=value` into the item and its parameters (keys in lower case, quotes removed). */
function splitParams(item: string): { head: string; params: Map<string, string> } {
  const [head = '', ...rest] = item.split(';').map((part) => part.trim());
  const params = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    if (at > 0)
      params.set(
        part.slice(0, at).trim().toLowerCase(),
        part
          .slice(at + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
    else if (part) params.set(part.toLowerCase(), '');
  }
  return { head, params };
}

/** A non-negative integer or decimal, or undefined. */
function count(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The longest window whose quota paces requests: a longer one bounds a day's volume, not a run's pace, and a spent one
 * still blocks the key through its remaining count.
 */
const LONGEST_PACING_WINDOW_S = 3_600;

/**
 * Quota policies: `20;w=1` or `"name";q=20;w=1`. Policies counting something else than requests, or of windows
 * longer than LONGEST_PACING_WINDOW_S, are skipped (`skipped`).
 */
function readPolicies(items: string[]): { perSecond: number[]; bad: boolean; skipped: number } {
  const perSecond: number[] = [];
  let bad = false;
  let skipped = 0;
  for (const item of items) {
    const { head, params } = splitParams(item);
    const unit = params.get('qu');
    if (unit !== undefined && unit !== 'requests') continue;
    const quota = count(params.get('q') ?? head);
    const window = count(params.get('w') ?? '');
    if (quota === undefined || window === undefined || window <= 0) {
      bad = true;
      continue;
    }
    if (window > LONGEST_PACING_WINDOW_S) {
      skipped += 1;
      continue;
    }
    perSecond.push(quota / window);
  }
  return { perSecond, bad, skipped };
}

/** `RateLimit`: `limit=20, remaining=5, reset=1` (draft 07) or `"name";r=5;t=1` items (draft 08+). False if unreadable. */
function readCombined(text: string, signals: RateLimitSignals, now: number): boolean {
  const items = splitList(text);
  if (items.some((item) => /^(limit|remaining|reset)\s*=/i.test(item))) {
    let ok = true;
    for (const item of items) {
      const [key = '', raw = ''] = item.split('=').map((part) => part.trim());
      const name = key.toLowerCase();
      if (name === 'reset') {
        ok = readFieldReset(raw, now, signals) && ok;
        continue;
      }
      const n = count(raw);
      if (n === undefined) {
        ok = false;
        continue;
      }
      if (name === 'limit') [signals.limit, signals.limitBy] = [n, 'RateLimit'];
      else if (name === 'remaining') signals.remaining = n;
    }
    return ok;
  }
  // Several policies may each report: the one with the fewest requests left binds.
  let read = false;
  for (const item of items) {
    const { params } = splitParams(item);
    const remaining = count(params.get('r') ?? '');
    if (remaining === undefined) continue;
    read = true;
    if (signals.remaining === undefined || remaining < signals.remaining) {
      signals.remaining = remaining;
      const reset = params.get('t');
      if (reset !== undefined) readFieldReset(reset, now, signals);
    }
  }
  return read;
}

/** The IETF fields' `reset=` and `t=`: a reset further than MAX_RETRY_AFTER_MS is cut to it. False when unreadable. */
function readFieldReset(text: string, now: number, signals: RateLimitSignals): boolean {
  const time = readHeaderTime(text, now);
  if (!time) return false;
  setReset({ ...time, ms: Math.min(time.ms, MAX_RETRY_AFTER_MS) }, signals);
  return true;
}

function setReset(time: HeaderTime, signals: RateLimitSignals): void {
  signals.resetMs = Math.max(0, time.ms);
  signals.resetRoundingMs = time.roundingMs;
}
