import { dateValue, listValue, timestampTZValue, timestampValue, type DuckDBValue } from '@duckdb/node-api';
import { DAY_MS } from '../../days.js';

/** Turns one cell as a stream hands it over into the value DuckDB stores; throws with the reason when it cannot. */
export type CellConverter = (value: unknown) => DuckDBValue;

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function toInteger(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  // A bigint beyond the safe range becomes a number that is not a safe integer, however it rounds.
  if (typeof value === 'bigint' && Number.isSafeInteger(Number(value))) return Number(value);
  throw new Error(`expected an integer, got ${describe(value)}`);
}

const toInt32: CellConverter = (value) => {
  const n = toInteger(value);
  if ((n | 0) !== n) throw new Error(`${n} does not fit a 32-bit INTEGER`);
  return n;
};

const toBigint: CellConverter = (value) => (typeof value === 'bigint' ? value : BigInt(toInteger(value)));

const toDouble: CellConverter = (value) => {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw new Error(`expected a number, got ${describe(value)}`);
};

const toBoolean: CellConverter = (value) => {
  if (typeof value === 'boolean') return value;
  throw new Error(`expected a boolean, got ${describe(value)}`);
};

// Text columns keep what the API sends even when a value is not the string the spec promises (e.g. a
// numeric price): losing it would be worse than storing its text.
const toVarchar: CellConverter = (value) => {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
};

const toJson: CellConverter = (value) =>
  JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner));

// A slice holds few distinct days and many rows, so parsed days are remembered (bounded).
const parsedDays = new Map<string, DuckDBValue>();
const PARSED_DAYS_LIMIT = 10_000;

function parseDay(text: string): DuckDBValue {
  const known = parsedDays.get(text);
  if (known !== undefined) return known;
  const match = DAY_PATTERN.exec(text);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (Number.isNaN(ms) || !new Date(ms).toISOString().startsWith(text)) {
    throw new Error(`expected a day as YYYY-MM-DD, got ${describe(text)}`);
  }
  const parsed = dateValue(ms / DAY_MS);
  if (parsedDays.size >= PARSED_DAYS_LIMIT) parsedDays.clear();
  parsedDays.set(text, parsed);
  return parsed;
}

const toDate: CellConverter = (value) => {
  if (typeof value === 'string') return parseDay(value);
  if (value instanceof Date && !Number.isNaN(value.getTime())) return dateValue(Math.floor(value.getTime() / DAY_MS));
  throw new Error(`expected a day as YYYY-MM-DD, got ${describe(value)}`);
};

function epochMillis(value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new Error(`expected an ISO 8601 timestamp, got ${describe(value)}`);
  return ms;
}

/**
 * The microseconds below the millisecond a timestamp's text states (`.123456` gives 456), which Date.parse drops and
 * DuckDB keeps. Digits past the sixth are cut, as DuckDB would.
 */
function subMillisecondMicros(value: unknown): number {
  if (typeof value !== 'string') return 0;
  const dot = value.indexOf('.', 17);
  if (dot < 0) return 0;
  // Fewer than three digits of milliseconds (`.03+05:30`): nothing below the millisecond; the offset is no microseconds.
  for (let index = dot + 1; index <= dot + 3; index++) if (!isDigit(value.charCodeAt(index))) return 0;
  let micros = 0;
  for (let place = 100, index = dot + 4; place >= 1; place /= 10, index++) {
    const code = value.charCodeAt(index);
    if (!isDigit(code)) break;
    micros += (code - 48) * place;
  }
  return micros;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function epochMicros(value: unknown): bigint {
  return BigInt(epochMillis(value)) * 1000n + BigInt(subMillisecondMicros(value));
}

const toTimestampTz: CellConverter = (value) => timestampTZValue(epochMicros(value));
const toTimestamp: CellConverter = (value) => timestampValue(epochMicros(value));

function listOf(item: CellConverter): CellConverter {
  return (value) => {
    if (!Array.isArray(value)) throw new Error(`expected an array, got ${describe(value)}`);
    return listValue(
      value.map((element, index) => {
        if (element === null || element === undefined) return null;
        try {
          return item(element);
        } catch (error) {
          throw new Error(`item ${index}: ${(error as Error).message}`);
        }
      }),
    );
  };
}

const SCALAR_CONVERTERS: Record<string, CellConverter> = {
  TINYINT: toInt32,
  SMALLINT: toInt32,
  INTEGER: toInt32,
  BIGINT: toBigint,
  HUGEINT: toBigint,
  DOUBLE: toDouble,
  FLOAT: toDouble,
  BOOLEAN: toBoolean,
  VARCHAR: toVarchar,
  JSON: toJson,
  DATE: toDate,
  'TIMESTAMP WITH TIME ZONE': toTimestampTz,
  TIMESTAMP: toTimestamp,
};

/**
 * The converter for a column type as the catalog spells it. Types the migrations do not use are refused
 * when the catalog is read, not when the first row arrives.
 */
export function converterFor(dataType: string): CellConverter {
  if (dataType.endsWith('[]')) return listOf(converterFor(dataType.slice(0, -2)));
  const converter = SCALAR_CONVERTERS[dataType];
  if (!converter) throw new Error(`no loader conversion for column type ${dataType}`);
  return converter;
}
