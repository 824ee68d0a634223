import type { ApiClient, Rejection } from '../api/index.js';
import type { SyncConfig } from '../config/schema.js';
import type { Row, Scope } from '../warehouse/slice-batch.js';
import type { StreamName } from './stream-names.js';

/**
 * A stream is a declaration: how it is sliced, which client method reads a slice, and how a record becomes rows
 * of which tables. The generic runner (`run-slice.ts`) pages, validates, checks completeness and hands rows to the
 * loader; a stream file holds no HTTP, SQL or retry code.
 */

/** What phase 1 of a run loaded, for streams that fan out over it (domain details over domains, ...). */
export interface Dimensions {
  domains: string[];
  topicIds: number[];
  /** The brand's engines the per-engine streams break reports down by (`sync.engineBreakdown`, else learned from `_slice_queries`). */
  engines?: string[];
}

export interface SlicePlanInput {
  brandId: number;
  /** The days this run fetches for this brand and stream (incremental or backfill window), ascending. */
  days: string[];
  sync: SyncConfig;
  dimensions: Dimensions;
}

export type SliceParam = string | number | boolean | null | string[] | number[];

/** A slice as planned. It travels in job data, so it is plain JSON. */
export interface SlicePlan {
  /** Unique within the brand and stream: `2026-11-20`, `2026-11-20/topic-3`, `all`, `example.com/2026-11-20`. */
  key: string;
  /** The UTC day the slice covers, or null for windows and whole-brand slices. */
  day: string | null;
  /** The range of days the slice reads (for a whole-brand slice: the run's days). */
  from: string | null;
  to: string | null;
  /** Stream-specific parameters: a domain, a topic id, a metric... */
  params: Record<string, SliceParam>;
}

/** The part of a stream the planner needs. */
export interface StreamPlanning {
  name: StreamName;
  /** 1, or 2 for streams that need what phase 1 loaded (see `Dimensions`); may depend on the config. */
  phase: 1 | 2 | ((sync: SyncConfig) => 1 | 2);
  slices(input: SlicePlanInput): SlicePlan[];
}

/** One page of a slice as the runner consumes it; single-shot reports give one. */
export interface SourcePage<R> {
  records: R[];
  rejects: Rejection[];
  /** What the API said the whole set holds, when it says. */
  totalRows: number | undefined;
  info: unknown;
}

export interface ReadContext {
  client: ApiClient;
  brandId: number;
  slice: SlicePlan;
  sync: SyncConfig;
  signal?: AbortSignal;
}

export interface RowContext {
  brandId: number;
  slice: SlicePlan;
}

export type RowsByTable = Record<string, Row[]>;

/** Where a slice writes, and how its earlier rows in that table are replaced (see `TableWrite`). */
export type TableTarget = { table: string; mode: 'merge' } | { table: string; mode: 'replace'; scope: Scope };

export interface StreamDefinition<R = unknown> extends StreamPlanning {
  /** Every table the slice writes, even when a fetch brings no rows: a replace with no rows empties the slice. */
  targets(context: RowContext): TableTarget[];
  /** The pages of a slice, through one client method. */
  read(context: ReadContext): AsyncIterable<SourcePage<R>>;
  /**
   * The record's id, for streams whose slices are paged: the distinct ids must add up to the `total_rows` the API
   * reported, or the slice is fetched again and then marked incomplete.
   */
  recordId?(record: R): string | number;
  /** The rows one record becomes. */
  rows(record: R, context: RowContext): RowsByTable;
  /** Rows a page's `info` becomes (daily totals, counters), once per slice from its last page. */
  infoRows?(page: SourcePage<R>, context: RowContext): RowsByTable;
}

/** Type-erases a declaration for the registry while keeping it checked where it is written. */
export function defineStream<R>(definition: StreamDefinition<R>): StreamDefinition<unknown> {
  return definition as StreamDefinition<unknown>;
}
