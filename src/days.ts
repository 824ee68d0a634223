/** UTC days as `YYYY-MM-DD` strings: the unit of slicing, state and every daily table. */

export const DAY_MS = 86_400_000;
export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** A day that is not a real calendar day, with where it came from. */
class BadDayError extends Error {
  readonly code = 'bad_day';
  constructor(where: string, value: string) {
    super(`${where}: "${value}" is not a day; expected YYYY-MM-DD, e.g. 2026-11-20`);
    this.name = 'BadDayError';
  }
}

export function isDay(text: string): boolean {
  if (!DAY_PATTERN.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && utcDayOf(ms) === text;
}

export function parseDay(text: string, where: string): string {
  if (!isDay(text)) throw new BadDayError(where, text);
  return text;
}

/** The UTC day an instant falls on; throws a RangeError for an invalid one. */
export function utcDayOf(instant: Date | number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/**
 * The UTC day of a validated ISO 8601 timestamp (src/api/schemas.ts `timestamp`): one in UTC starts with its day, so
 * only an offset needs a Date.
 */
export function timestampDay(timestamp: string): string {
  if (
    timestamp.length > 10 &&
    timestamp.charCodeAt(10) === 0x54 /* T */ &&
    timestamp.charCodeAt(timestamp.length - 1) === 0x5a /* Z */
  ) {
    return timestamp.slice(0, 10);
  }
  return utcDayOf(new Date(timestamp));
}

export function todayUtc(): string {
  return utcDayOf(Date.now());
}

/** Where a long-lived part reads today: tests and `BVSYNC_TODAY` pin a day; without one, todayBy reads the clock. */
export type DayClock = () => string;

export function todayBy(clock: DayClock | undefined): string {
  return clock ? clock() : todayUtc();
}

export function addDays(day: string, days: number): string {
  return utcDayOf(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS);
}

/** Days from `from` to `to`, both included; empty when `from` is after `to`. */
export function eachDay(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

export function minDay(a: string, b: string): string {
  return a < b ? a : b;
}

export function maxDay(a: string, b: string): string {
  return a > b ? a : b;
}
