import type { DuckDBConnection } from '@duckdb/node-api';
import type { Row, SliceBatch, TableWrite } from './load/slice-batch.js';
import type { SliceKey } from './state/bookkeeping.js';
import { DAY_MS, DAY_PATTERN } from '../days.js';

/**
 * What a slice's answer says the API applied. The echo in `info.query` (spec endpoints 16-18) is the only statement of
 * which engines a row covers; it is written in the slice's own transaction (`_slice_queries`), so it describes its rows.
 */

export const SLICE_QUERIES_TABLE = '_slice_queries';

export type QueryEcho = Record<string, unknown>;

/** The `info.query` object of an answer's info, or undefined when the answer echoes none. */
export function queryEchoOf(info: unknown): QueryEcho | undefined {
  if (typeof info !== 'object' || info === null) return undefined;
  const query = (info as { query?: unknown }).query;
  if (typeof query !== 'object' || query === null || Array.isArray(query)) return undefined;
  return query as QueryEcho;
}

/**
 * The engine list of an echo under the engines parameter's wire name: a list of strings, or one string of ids
 * separated by commas (an API that takes `engines=a,b` may echo the text it read); null for anything else.
 */
export function echoedEngines(query: QueryEcho, enginesParam: string): string[] | null {
  const engines = query[enginesParam];
  if (typeof engines === 'string')
    return engines
      .split(',')
      .map((engine) => engine.trim())
      .filter((engine) => engine !== '');
  if (!Array.isArray(engines) || !engines.every((engine): engine is string => typeof engine === 'string')) return null;
  return [...engines];
}

/**
 * The ids sent that the answer's echo leaves out, in any case: an API that drops an id it does not know answers for the
 * others, so the numbers cover fewer engines. Empty when none was sent or the echo names no engines.
 */
export function enginesDropped(applied: Pick<AppliedQuery, 'engines' | 'sentEngines'>): string[] {
  if (!applied.sentEngines || !applied.engines || applied.engines.length === 0) return [];
  const named = new Set(applied.engines.map((engine) => engine.toLowerCase()));
  return applied.sentEngines.filter((engine) => !named.has(engine.toLowerCase()));
}

/**
 * Why the rows of a per-engine slice are not that engine's, when the answer's echo names other engines (an API that
 * drops an id it does not know falls back to its default); undefined when the echo names the engine alone or none.
 */
export function engineNotApplied(query: QueryEcho, enginesParam: string, asked: string): string | undefined {
  const echoed = echoedEngines(query, enginesParam);
  // An empty list names no engine; a repeated one is still the one.
  const named = new Set((echoed ?? []).map((engine) => engine.toLowerCase()));
  if (named.size === 0 || (named.size === 1 && named.has(asked.toLowerCase()))) return undefined;
  return (
    `asked for engine ${JSON.stringify(asked)} alone, the answer's info.query says it applied ${JSON.stringify(echoed)}, so its rows are not that engine's ` +
    `and were not loaded; set sync.engineBreakdown to the API's engine ids and check api.params.engines (\`bvsync doctor\` reads both)`
  );
}

/**
 * The instant an echoed timestamp names: a space for the `T`, and UTC where it names no zone (the spec's times are
 * UTC), never local time. Undefined for a text that is no timestamp.
 */
export function instantOf(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) return undefined;
  const iso = text.replace(' ', 'T');
  const at = Date.parse(/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(iso) ? iso : `${iso}Z`);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * Milliseconds from the start of the UTC day `day` to what an echo names for it: a day (its first instant), or a
 * timestamp's instant; undefined for anything else.
 */
function offsetFromDay(day: string, echoed: string): DayOffset | undefined {
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  const dateOnly = DAY_PATTERN.test(echoed);
  const at = dateOnly ? Date.parse(`${echoed}T00:00:00Z`) : instantOf(echoed);
  return at === undefined || Number.isNaN(at) || Number.isNaN(dayStart)
    ? undefined
    : { offset: at - dayStart, dateOnly };
}

interface DayOffset {
  offset: number;
  dateOnly: boolean;
}

/**
 * An end day is inclusive (spec): as a date it is the day itself; the next day's date is a second day applied, while
 * the next day's first instant is the half-open spelling of the same day.
 */
function endsDay({ offset, dateOnly }: DayOffset): boolean {
  return offset === 0 || (!dateOnly && offset >= DAY_MS - 60_000 && offset <= DAY_MS);
}

/**
 * Why a slice's rows do not cover the days asked, when the echo's range starts after the asked UTC day's first instant
 * or ends other than on that day or the instant after it; undefined when the echo names no range or a right one.
 */
export function rangeNotApplied(
  query: QueryEcho,
  slice: { from: string | null; to: string | null },
  wire: { start: string; end: string },
): string | undefined {
  const wrong: string[] = [];
  const judge = (bound: 'start' | 'end', day: string | null, name: string) => {
    const echoed = query[name];
    if (day === null || typeof echoed !== 'string') return;
    const read = offsetFromDay(day, echoed);
    if (read === undefined) return;
    const right = bound === 'start' ? read.offset === 0 : endsDay(read);
    if (!right) wrong.push(`${name}=${day} as ${JSON.stringify(echoed)}`);
  };
  judge('start', slice.from, wire.start);
  judge('end', slice.to, wire.end);
  if (!(wire.start in query) && !(wire.end in query)) return rangeUnderOtherNames(query, slice, wire);
  if (wrong.length === 0) return undefined;
  return (
    `the answer's info.query says the API applied ${wrong.join(' and ')}, not the UTC day${slice.from === slice.to ? '' : 's'} asked for, so its rows ` +
    `would be filed under days they do not cover and were not loaded; the spec's days are UTC days: \`bvsync doctor\` checks the ranges`
  );
}

/**
 * An echo that names neither range parameter sent but dates under other names (`from`, `to`) that are not the slice's
 * days: the API read its range under other names and applied its own. The slice's own dates say nothing against it.
 */
function rangeUnderOtherNames(
  query: QueryEcho,
  slice: { from: string | null; to: string | null },
  wire: { start: string; end: string },
): string | undefined {
  if (slice.from === null || slice.to === null) return undefined;
  const foreign: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') continue;
    const fromStart = offsetFromDay(slice.from, value);
    const fromEnd = offsetFromDay(slice.to, value);
    if (fromStart === undefined || fromEnd === undefined) continue;
    if (fromStart.offset !== 0 && !endsDay(fromEnd)) foreign.push(`${name}=${JSON.stringify(value)}`);
  }
  if (foreign.length === 0) return undefined;
  return (
    `the answer's info.query names ${foreign.join(' and ')} but not ${wire.start} or ${wire.end}, which bvsync sent for ${slice.from === slice.to ? slice.from : `${slice.from}..${slice.to}`}: ` +
    `the API reads its range under other names and applied its own, so the rows were not loaded; set api.params.start_date and api.params.end_date to its names, or api.endpointParams when this endpoint alone names them otherwise (\`bvsync doctor\` checks them)`
  );
}

/** What a slice's answer says was applied, as the loader writes it to `_slice_queries` beside the slice's rows. */
export interface AppliedQuery {
  query: QueryEcho;
  /** The echo's engine list: the engines every row of the slice covers (null when the echo names none). */
  engines: string[] | null;
  /** The engines filter the slice sent (the call's, or `api.engines`); null when it sent none, so the API's default applied. */
  sentEngines?: string[] | null;
  /** The days the slice read. */
  rangeStart: string | null;
  rangeEnd: string | null;
}

/** A slice's echo with its engines read under the engines parameter's wire name (`api.params.engines`). */
export function appliedQuery(
  query: QueryEcho,
  slice: { from: string | null; to: string | null },
  enginesParam = 'engines',
  sentEngines?: readonly string[] | undefined,
): AppliedQuery {
  return {
    query,
    engines: echoedEngines(query, enginesParam),
    rangeStart: slice.from,
    rangeEnd: slice.to,
    sentEngines: sentEngines ? [...sentEngines] : null,
  };
}

/**
 * For an answer that echoes no query (tracked URLs, SWOT answers, fanouts, product ranking), what the slice sent is
 * the record of which engines its numbers cover: `{"sent": {"engines": [...]}}`, told apart from an echo by its key.
 */
export function sentEnginesQuery(
  engines: readonly string[],
  slice: { from: string | null; to: string | null },
): AppliedQuery {
  return {
    query: { sent: { engines: [...engines] } },
    engines: [...engines],
    rangeStart: slice.from,
    rangeEnd: slice.to,
    sentEngines: [...engines],
  };
}

/** The replace of a slice's echo: its earlier echo goes and this one comes, in the transaction of the slice's rows. */
export function sliceQueryWrite(
  batch: Pick<SliceBatch, 'brandId' | 'stream' | 'sliceKey' | 'day'>,
  applied: AppliedQuery,
): TableWrite {
  const row: Row = {
    brand_id: batch.brandId,
    stream: batch.stream,
    slice_key: batch.sliceKey,
    day: batch.day,
    range_start: applied.rangeStart,
    range_end: applied.rangeEnd,
    query: applied.query,
    engines: applied.engines,
    sent_engines: applied.sentEngines ?? null,
  };
  return sliceQueriesReplace(batch, [row]);
}

function sliceQueriesReplace(slice: SliceKey, rows: Row[]): TableWrite {
  return {
    table: SLICE_QUERIES_TABLE,
    mode: 'replace',
    scope: { brand_id: slice.brandId, stream: slice.stream, slice_key: slice.sliceKey },
    rows,
  };
}

/**
 * Drops the `_slice_queries` rows of slices loading again with no query (no echo, no engines sent), so none names
 * engines for rows now holding every engine's; returns the replace writes to journal, by the slices' positions.
 */
export async function dropUnsaidSliceQueries(
  connection: DuckDBConnection,
  slices: readonly (SliceKey | undefined)[],
): Promise<Map<number, TableWrite>> {
  const asked = slices.flatMap((slice, position) => (slice ? [{ slice, position }] : []));
  if (!asked.length) return new Map();
  const values = asked.flatMap(({ slice }) => [slice.brandId, slice.stream, slice.sliceKey]);
  const matches = asked
    .map((_, i) => `(brand_id = $${3 * i + 1} AND stream = $${3 * i + 2} AND slice_key = $${3 * i + 3})`)
    .join(' OR ');
  const deleted = await connection.runAndReadAll(
    `DELETE FROM ${SLICE_QUERIES_TABLE} WHERE ${matches} RETURNING brand_id, stream, slice_key`,
    values,
  );
  const had = new Set(
    deleted.getRowsJS().map(([brandId, stream, sliceKey]) => `${Number(brandId)}/${stream}/${sliceKey}`),
  );
  const writes = new Map<number, TableWrite>();
  for (const { slice, position } of asked) {
    if (!had.has(`${slice.brandId}/${slice.stream}/${slice.sliceKey}`)) continue;
    writes.set(position, sliceQueriesReplace(slice, []));
  }
  return writes;
}

/**
 * The engines the echoes of a stream's ($1) slices named, per brand, in one scan: those of slices that sent no filter
 * all count; those of slices that sent `api.engines` name what was asked, counted only when the brand has no other.
 */
export const ECHOED_ENGINES_SQL = `WITH echoes AS (
    SELECT brand_id, engines, sent_engines, bool_or(sent_engines IS NULL) OVER (PARTITION BY brand_id) AS some_unsent
      FROM ${SLICE_QUERIES_TABLE} WHERE stream = $1)
  SELECT DISTINCT brand_id, engine FROM echoes, unnest(engines) AS e(engine)
  WHERE sent_engines IS NULL OR NOT some_unsent
  ORDER BY brand_id, engine`;
