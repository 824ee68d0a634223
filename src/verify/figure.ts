import type { DuckDBConnection } from '@duckdb/node-api';
import type { ApiClient } from '../api/index.js';

/** Days `from`..`to` (YYYY-MM-DD, both included), the range every figure of a comparison covers. */
export interface DayWindow {
  from: string;
  to: string;
}

/** The API's range filter of a window. */
export function rangeOf(window: DayWindow): { startDate: string; endDate: string } {
  return { startDate: window.from, endDate: window.to };
}

/**
 * One number the API reports over a whole window, beside the same number recomputed from the warehouse's daily rows.
 * A side is null when that side has no such figure (a topic the API lists but the warehouse has no row of).
 */
export interface Figure {
  /** The family it belongs to (`conversations`, `visibility`, ...), one API request per window. */
  family: string;
  /** What the number is, in words (`visibility topic 12: answers mentioning the brand`). */
  figure: string;
  api: number | null;
  warehouse: number | null;
  agree: boolean;
  /** A figure of one item (a topic, a page, an ownership, a product) rather than a total of the family. */
  detail: boolean;
}

/** What a family needs to measure a window: the API client (the sync's stack) and the read-only warehouse. */
export interface MeasureContext {
  client: ApiClient;
  /** The warehouse, open read-only. */
  connection: DuckDBConnection;
  brandId: number;
  /** `sync.engineBreakdown`: the engines the per-engine streams ask, when configured. */
  engineBreakdown?: readonly string[] | undefined;
  signal?: AbortSignal;
  /** Told of a figure the family left out, and why: the answer does not bear out the reading it would be rebuilt on. */
  notCompared?: (why: string) => void;
}

/**
 * A family of figures one API range request answers, which the warehouse can recompute for any window from daily rows.
 * Additive over days, so a window's disagreement is in one of its halves: how `verify` names the days to backfill.
 */
export interface FigureFamily {
  name: string;
  measure(context: MeasureContext, window: DayWindow): Promise<Figure[]>;
}

/** A total of a family, agreeing when both sides hold the same number. */
export function figure(
  family: string,
  name: string,
  api: number | null | undefined,
  warehouse: number | null | undefined,
  detail = false,
): Figure {
  const a = api ?? null;
  const w = warehouse ?? null;
  return { family, figure: name, api: a, warehouse: w, agree: a === w, detail };
}

/**
 * Figures of items keyed by what they are about, from both sides; a key only one side has is a disagreement (the other
 * side shows null), except when the side that has it holds zero, which is what an absent row means.
 */
export function pairFigures(family: string, api: Map<string, number>, warehouse: Map<string, number>): Figure[] {
  const keys = [...new Set([...api.keys(), ...warehouse.keys()])].sort((a, b) =>
    a.localeCompare(b, 'en', { numeric: true }),
  );
  return keys.map((key) => {
    const a = api.get(key);
    const w = warehouse.get(key);
    return figure(family, key, a ?? (w === 0 ? 0 : null), w ?? (a === 0 ? 0 : null), true);
  });
}
