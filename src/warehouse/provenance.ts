import type { Row, SliceBatch, TableWrite } from './slice-batch.js';

/**
 * What a slice's answer says the API applied. Visibility by topic, the citations report and domain detail echo
 * their query in `info.query` (spec endpoints 16-18); the engine defaults differ per endpoint and the spec omits the
 * engines' literal strings, so the echo is the only statement of which engines a row covers. It is written in the
 * slice's own transaction (`_slice_queries`, migration 009), so it always describes the rows the slice holds.
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

/** The engine list of an echo under the engines parameter's wire name, when it is a list of strings. */
export function echoedEngines(query: QueryEcho, enginesParam: string): string[] | null {
  const engines = query[enginesParam];
  if (!Array.isArray(engines) || !engines.every((engine): engine is string => typeof engine === 'string')) return null;
  return [...engines];
}

/**
 * Why the rows of a per-engine slice (asked with `engines=[engine]`) are not that engine's, when the answer's echo says
 * it applied other engines (an API that drops an engine id it does not know and falls back to its default); undefined
 * when the echo names the engine alone, in any letter case, or names no engines. Loaded, such rows put every engine's
 * answers under one engine's name, for each engine asked.
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

/** What a slice's answer says was applied, as the loader writes it to `_slice_queries` beside the slice's rows. */
export interface AppliedQuery {
  query: QueryEcho;
  /** The echo's engine list: the engines every row of the slice covers (null when the echo names none). */
  engines: string[] | null;
  /** The days the slice read. */
  rangeStart: string | null;
  rangeEnd: string | null;
}

/** A slice's echo with its engines read under the engines parameter's wire name (`api.params.engines`). */
export function appliedQuery(query: QueryEcho, slice: { from: string | null; to: string | null }, enginesParam = 'engines'): AppliedQuery {
  return { query, engines: echoedEngines(query, enginesParam), rangeStart: slice.from, rangeEnd: slice.to };
}

/**
 * For an answer that echoes no query (tracked URLs, SWOT answers, fanouts, product ranking), what the slice sent is
 * the record of which engines its numbers cover: `{"sent": {"engines": [...]}}`, told apart from an echo by its key.
 */
export function sentEnginesQuery(engines: readonly string[], slice: { from: string | null; to: string | null }): AppliedQuery {
  return { query: { sent: { engines: [...engines] } }, engines: [...engines], rangeStart: slice.from, rangeEnd: slice.to };
}

/** The replace of a slice's echo: its earlier echo goes and this one comes, in the transaction of the slice's rows. */
export function sliceQueryWrite(batch: Pick<SliceBatch, 'brandId' | 'stream' | 'sliceKey' | 'day'>, applied: AppliedQuery): TableWrite {
  const { brandId, stream, sliceKey } = batch;
  const row: Row = {
    brand_id: brandId,
    stream,
    slice_key: sliceKey,
    day: batch.day,
    range_start: applied.rangeStart,
    range_end: applied.rangeEnd,
    query: applied.query,
    engines: applied.engines,
  };
  return { table: SLICE_QUERIES_TABLE, mode: 'replace', scope: { brand_id: brandId, stream, slice_key: sliceKey }, rows: [row] };
}

/**
 * The SQL of the engines the echoes of one stream's slices of a brand named ($1 brand, $2 stream). Every echo counts,
 * so an engine the brand ran on some day is still broken down for that history.
 */
export const ECHOED_ENGINES_SQL = `SELECT DISTINCT engine FROM ${SLICE_QUERIES_TABLE}, unnest(engines) AS e(engine)
  WHERE brand_id = $1 AND stream = $2 ORDER BY engine`;
