/**
 * Numbers as people read them, the same in every command, and the text of anything thrown, for messages.
 * Output meant for programs (CSV, JSON, `--json`) never goes through here: it stays exact.
 */

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A whole number with thousands separators: `83,637`. Bigints and numeric strings keep every digit. */
export function formatInteger(value: number | bigint | string): string {
  if (typeof value === 'string') return /^-?\d+$/.test(value) ? groupDigits(value) : value;
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return COUNT.format(value);
}

function groupDigits(digits: string): string {
  const sign = digits.startsWith('-') ? '-' : '';
  return sign + digits.slice(sign.length).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * A count and its noun, singular for exactly one: `1 row`, `1,749 requests`. The plural is `noun + s` unless given
 * (`formatCount(2, 'entry', 'entries')`).
 */
export function formatCount(count: number | bigint, noun: string, plural = `${noun}s`): string {
  return `${formatInteger(count)} ${count === 1 || count === 1n ? noun : plural}`;
}

/** Decimals kept for values of 1 and more; smaller values keep this many significant digits instead. */
const DECIMALS = 4;

/**
 * A double for a table: at most 4 decimals from 1 up, 4 significant digits below 1, so a small rate is not 0.
 * No trailing zeros and no thousands separators, so the text still reads back as a number.
 */
export function formatDecimal(value: number): string {
  if (!Number.isFinite(value) || value === 0) return String(value === 0 ? 0 : value);
  const rounded = Math.abs(value) >= 1 ? value.toFixed(DECIMALS) : value.toPrecision(DECIMALS);
  return String(Number(rounded));
}

/**
 * A duration: `130 ms`, `4.2 s`, `3m 04s`, `1h 02m 03s`, `2d 03h 04m`. Negative durations get a leading `-`.
 * Under a minute the tenths of a second count; above, whole seconds are enough.
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  if (seconds < 0) return `-${formatDuration(-seconds)}`;
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 59.95) return `${Number(seconds.toFixed(1))} s`;
  const total = Math.round(seconds);
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = total % 60;
  if (days > 0) return `${days}d ${pad(hours)}h ${pad(minutes)}m`;
  if (hours > 0) return `${hours}h ${pad(minutes)}m ${pad(secs)}s`;
  return `${minutes}m ${pad(secs)}s`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** DuckDB's INTERVAL as its JSON form spells it: months and days apart, microseconds as a (big) number or text. */
export interface IntervalParts {
  months: number;
  days: number;
  micros: number | bigint | string;
}

/**
 * An INTERVAL for a table: months and days are calendar units (a month is not a fixed number of days), so they
 * are written apart, then the time part as a duration: `1 month 2 days 3m 04s`, `184.1 s`.
 */
export function formatInterval(interval: IntervalParts): string {
  const parts: string[] = [];
  if (interval.months) {
    const years = Math.trunc(interval.months / 12);
    const months = interval.months % 12;
    if (years) parts.push(formatCount(years, 'year'));
    if (months) parts.push(formatCount(months, 'month'));
  }
  if (interval.days) parts.push(formatCount(interval.days, 'day'));
  const micros = Number(interval.micros);
  if (micros || parts.length === 0) parts.push(formatDuration(micros / 1_000_000));
  return parts.join(' ');
}

const BYTE_UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];

/** A size in bytes in the largest binary unit under it, one decimal from KiB up: `512 bytes`, `38.2 MiB`, `1.5 GiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} bytes` : `${value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** The `code` of a Node or undici error (`ENOENT`, `ECONNRESET`, `CERT_HAS_EXPIRED`), when it has one. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The text of anything thrown: an Error's message, else the value as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
