/** Days as integers (days since 1970-01-01, UTC), which makes ranges and lookups plain arithmetic. */
import { DAY_MS, DAY_PATTERN, isDay, utcDayOf } from '../days.js';

export { DAY_MS, DAY_PATTERN };

export function simDayOfMs(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export function simDayString(day: number): string {
  return utcDayOf(day * DAY_MS);
}

/** Parses YYYY-MM-DD strictly (the day must exist); undefined otherwise. */
export function parseSimDay(text: string): number | undefined {
  return isDay(text) ? simDayOfMs(Date.parse(`${text}T00:00:00Z`)) : undefined;
}

/** Monday of the week holding the day (1970-01-01 was a Thursday). */
export function weekStart(day: number): number {
  return day - ((day + 3) % 7);
}

/** The first day of the day's month, or of the month `months` after it. */
export function monthStart(day: number, months = 0): number {
  const date = new Date(day * DAY_MS);
  return simDayOfMs(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1));
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function pad(value: number, width: number): string {
  return value.toString().padStart(width, '0');
}

/** toISOString for a time inside a known day, without a Date: a conversation page formats a hundred of them. */
export function isoTimeInDay(dayText: string, ms: number): string {
  const inDay = ms % DAY_MS;
  const hours = Math.floor(inDay / 3_600_000);
  const minutes = Math.floor((inDay % 3_600_000) / 60_000);
  const seconds = Math.floor((inDay % 60_000) / 1000);
  return `${dayText}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(inDay % 1000, 3)}Z`;
}
