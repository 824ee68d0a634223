import { type ArrayFormat, type ParamMapping, wireName } from '../api/param-names.js';
import { DAY_MS, DAY_PATTERN, simDayOfMs, simDayString, parseSimDay } from './sim-days.js';
import { simulatorValidationError, type SimulatorErrorDetail } from './sim-errors.js';
import type { Knobs } from './knobs.js';
import type { RangeEndEcho } from './options.js';
import { queryObject } from './request-log.js';

/** Days a range spans when the request sends no start: 30 days ending on the end day. */
const DEFAULT_RANGE_DAYS = 30;

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** How a request's query is read: the simulator's options and the knobs that bear on it. */
type QuerySettings = Knobs & { arrayFormat: ArrayFormat; rangeEndEcho: RangeEndEcho };

/**
 * Reads a request's query by default parameter names mapped to wire names, collecting problems by wire name. `finish()`
 * throws them all; with `strictParams` also unknown parameters, so a client's wrong mapping fails loudly.
 */
export class QueryReader {
  readonly errors: SimulatorErrorDetail[] = [];
  /** The query as applied, defaults filled in, keyed by wire names: the `info.query` echo of the reports. */
  readonly applied: Record<string, unknown> = {};
  private readonly known = new Set<string>();

  constructor(
    private readonly search: URLSearchParams,
    private readonly mapping: ParamMapping,
    readonly settings: QuerySettings,
  ) {}

  /** The reports' `info.query`: the query as applied, or with `echoMirror` every parameter as received, known or not. */
  echoed(): Record<string, unknown> {
    return this.settings.echoMirror ? queryObject(this.search) : this.applied;
  }

  wire(name: string): string {
    return wireName(name, this.mapping);
  }

  /** Records a problem with a parameter, by its wire name; routes add those of parameters read together. */
  fail(name: string, message: string): undefined {
    this.errors.push({ field: this.wire(name), message });
    return undefined;
  }

  raw(name: string): string | undefined {
    this.accept(name);
    const values = this.search.getAll(this.wire(name));
    if (values.length > 1) return this.fail(name, 'sent more than once');
    return values[0];
  }

  int(name: string, limits: { min?: number; max?: number; default?: number } = {}): number | undefined {
    const text = this.raw(name);
    if (text === undefined) return limits.default;
    if (!/^-?\d+$/.test(text)) return this.fail(name, 'must be an integer');
    const value = Number(text);
    if (limits.min !== undefined && value < limits.min) return this.fail(name, `must be at least ${limits.min}`);
    if (limits.max !== undefined && value > limits.max) return this.fail(name, `must be at most ${limits.max}`);
    return value;
  }

  bool(name: string): boolean | undefined {
    const text = this.raw(name);
    if (text === undefined) return undefined;
    if (text === 'true') return true;
    if (text === 'false') return false;
    return this.fail(name, 'must be true or false');
  }

  string(name: string, limits: { min?: number; max?: number } = {}): string | undefined {
    const text = this.raw(name);
    if (text === undefined) return undefined;
    if (limits.min !== undefined && text.length < limits.min)
      return this.fail(name, `must be at least ${limits.min} characters`);
    if (limits.max !== undefined && text.length > limits.max)
      return this.fail(name, `must be at most ${limits.max} characters`);
    return text;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const text = this.raw(name);
    if (text === undefined) return undefined;
    if (!(values as readonly string[]).includes(text)) return this.fail(name, `must be one of ${values.join(', ')}`);
    return text as T;
  }

  /** An array parameter in the configured format; undefined when absent. */
  array(name: string, limits: { min?: number; max?: number; values?: readonly string[] } = {}): string[] | undefined {
    this.accept(name);
    const sent = this.search.getAll(this.wire(name));
    if (sent.length === 0) return undefined;
    const comma = this.settings.arrayFormat === 'comma';
    if (comma && sent.length > 1) return this.fail(name, 'arrays are sent comma-separated in one parameter');
    const values = comma ? (sent[0] === '' ? [] : sent[0]!.split(',')) : sent;
    const min = limits.min ?? 1;
    if (values.length < min) return this.fail(name, `must have at least ${min} element${min === 1 ? '' : 's'}`);
    if (limits.max !== undefined && values.length > limits.max)
      return this.fail(name, `must have at most ${limits.max} elements`);
    if (limits.values) {
      const unknown = values.filter((v) => !(limits.values as readonly string[]).includes(v));
      if (unknown.length > 0)
        return this.fail(
          name,
          `unknown value${unknown.length > 1 ? 's' : ''} ${unknown.map((v) => JSON.stringify(v)).join(', ')}`,
        );
    }
    return values;
  }

  intArray(name: string, limits: { min?: number; max?: number } = {}): number[] | undefined {
    const values = this.array(name, limits);
    if (!values) return undefined;
    if (values.some((v) => !/^\d+$/.test(v))) return this.fail(name, 'must hold integer ids');
    return values.map(Number);
  }

  /**
   * The range start and end (spec "Shared query filters"): a day or an ISO datetime, both inclusive, an end
   * day covering its whole day. No end means today; no start means DEFAULT_RANGE_DAYS days ending on the end.
   */
  dateRange(today: number): { startMs: number; endMs: number } | undefined {
    const start = this.raw('start_date');
    const end = this.raw('end_date');
    const startParsed = start === undefined ? undefined : parseBound(start, 'start');
    const endParsed =
      end === undefined
        ? undefined
        : this.settings.endDayLeftOut && parseSimDay(end) !== undefined
          ? { ms: parseSimDay(end)! * DAY_MS - 1, text: end }
          : parseBound(end, 'end');
    if (start !== undefined && !startParsed) this.fail('start_date', 'must be YYYY-MM-DD or an ISO 8601 datetime');
    if (end !== undefined && !endParsed) this.fail('end_date', 'must be YYYY-MM-DD or an ISO 8601 datetime');
    if ((start !== undefined && !startParsed) || (end !== undefined && !endParsed)) return undefined;
    // Another zone's day: D from D 00:00 in that zone, so 5 hours later in UTC for a zone 5 hours behind.
    const shift = -this.settings.dayZoneHours * 3_600_000;
    for (const bound of [startParsed, endParsed])
      if (bound && shift !== 0 && DAY_PATTERN.test(bound.text)) bound.ms += shift;
    const endBound = endParsed ?? { ms: (today + 1) * DAY_MS - 1, text: simDayString(today) };
    const startDay = simDayOfMs(endBound.ms) - DEFAULT_RANGE_DAYS + 1;
    const startBound = startParsed ?? { ms: startDay * DAY_MS, text: simDayString(startDay) };
    // A one-day range whose end day is left out is empty, not refused: as such an API answers it.
    const emptied = this.settings.endDayLeftOut && startBound.ms === endBound.ms + 1;
    if (startBound.ms > endBound.ms && !emptied)
      return this.fail('start_date', 'must not be after the end of the range');
    this.applied[this.wire('start_date')] =
      this.settings.rangeEndEcho === 'offset' ? `${startBound.text.slice(0, 10)}T00:00:00-05:00` : startBound.text;
    this.applied[this.wire('end_date')] = echoedEnd(this.settings.rangeEndEcho, endBound);
    return { startMs: startBound.ms, endMs: endBound.ms };
  }

  sentNames(): string[] {
    return [...new Set(this.search.keys())];
  }

  /** Marks a parameter as known to the endpoint without reading it (e.g. an ignored filter). */
  accept(name: string): void {
    this.known.add(this.wire(name));
  }

  echo(name: string, value: unknown): void {
    if (value !== undefined) this.applied[this.wire(name)] = value;
  }

  finish(): void {
    if (this.settings.strictParams) {
      for (const key of new Set(this.search.keys())) {
        if (this.known.has(key)) continue;
        const listed = this.settings.unknownParamsListed
          ? `; known parameters: ${[...this.known].sort().join(', ') || 'none'}`
          : '';
        this.errors.push({ field: key, message: `unknown query parameter for this endpoint${listed}` });
      }
    }
    if (this.errors.length > 0) throw simulatorValidationError(this.errors);
  }
}

function parseBound(text: string, side: 'start' | 'end'): { ms: number; text: string } | undefined {
  const day = parseSimDay(text);
  if (day !== undefined) return { ms: side === 'start' ? day * DAY_MS : (day + 1) * DAY_MS - 1, text };
  if (!ISO_DATETIME.test(text)) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  return { ms, text: new Date(ms).toISOString() };
}

/** The range's end as `info.query` echoes it (RangeEndEcho). */
function echoedEnd(form: RangeEndEcho, end: { ms: number; text: string }): string {
  // The instant after the last one counted: the next millisecond is the start of the next day for an end day.
  if (form === 'exclusive') return new Date(end.ms + 1).toISOString().replace('.000Z', 'Z');
  if (form === 'midnight') return `${end.text.slice(0, 10)}T00:00:00Z`;
  if (form === 'offset') return `${end.text.slice(0, 10)}T23:59:59-05:00`;
  return end.text;
}
