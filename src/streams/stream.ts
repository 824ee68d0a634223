import type { z } from 'zod';
import type { AnyEndpoint } from '../api/endpoint.js';
import type { ApiClient, ReadPage } from '../api/index.js';
import type { Row, Scope } from '../warehouse/load/slice-batch.js';
import type { DimensionName, Dimensions, Provides } from './dimensions.js';

export type { Dimensions } from './dimensions.js';

/**
 * A stream is a declaration: schema, endpoint, slicing, the rows of each record, its `sync` settings and dimensions.
 * The runner (`run-slice.ts`) does the rest: no HTTP, SQL or retry code here (docs/adding-a-stream.md).
 */

export type SliceParam = string | number | boolean | null | string[] | number[];
export type SliceParams = { [name: string]: SliceParam };

/** A slice as planned. It travels in job data, so it is plain JSON; `P` is what the stream put in its params. */
export interface SlicePlan<P extends SliceParams = SliceParams> {
  /** Unique within the brand and stream: `2026-11-20`, `2026-11-20/topic-3`, `all`, `example.com/2026-11-20`. */
  key: string;
  /** The UTC day the slice covers, or null for windows and whole-brand slices. */
  day: string | null;
  /** The range of days the slice reads (for a whole-brand slice: the run's days). */
  from: string | null;
  to: string | null;
  /** Stream-specific parameters: a domain, a topic id, a metric... */
  params: P;
  /** A list read as it stands when read (`once`), whatever the run's days: complete as soon as it loads complete. */
  snapshot?: true;
}

/** A slice of one day (`perDay`). */
export interface DaySlice<P extends SliceParams = SliceParams> extends SlicePlan<P> {
  day: string;
  from: string;
  to: string;
}

/** A slice over the run's window (`perWindow`). */
export interface WindowSlice<P extends SliceParams = SliceParams> extends SlicePlan<P> {
  day: null;
  from: string;
  to: string;
}

/** A stream's own settings under `sync` (merged into the config schema by src/configuration.ts). */
export type SettingsShape = z.ZodRawShape;
// For any stream (C is `any`) any settings: a declaration's functions take its own settings (contravariant).
// biome-ignore lint/suspicious/noExplicitAny: `any` settings for any stream, as the comment above says
export type SettingsOf<C extends SettingsShape> = 0 extends 1 & C ? any : z.infer<z.ZodObject<C>>;

export interface SlicePlanInput<C extends SettingsShape = SettingsShape> {
  brandId: number;
  /** The days this run fetches for this brand and stream (incremental or backfill window), ascending. */
  days: string[];
  /** The `sync` config; a stream sees its own settings. */
  sync: SettingsOf<C>;
  /** What earlier phases loaded, for streams that `need` it. */
  dimensions: Dimensions;
  /** The process clock's day the plan is made on (not `--today`); default the real UTC day. */
  readDay?: string;
}

export interface RowContext<S extends SlicePlan = SlicePlan> {
  brandId: number;
  slice: S;
}

export interface ReadContext<S extends SlicePlan = SlicePlan, C extends SettingsShape = SettingsShape>
  extends RowContext<S> {
  client: ApiClient;
  sync: SettingsOf<C>;
  signal?: AbortSignal;
}

/** One page of a slice as the runner consumes it; single-shot reports give one. */
export type SourcePage<R> = ReadPage<R, unknown>;

export type RowsByTable = Record<string, Row[]>;

/** Where a slice writes, and how its earlier rows in that table are replaced (see `TableWrite`). */
export type TableTarget = { table: string; mode: 'merge' } | { table: string; mode: 'replace'; scope: Scope };

/** Tables a slice replaces under one scope. */
export function replacing(tables: readonly string[], scope: Scope): TableTarget[] {
  return tables.map((table) => ({ table, mode: 'replace', scope }));
}

// The defaults take any stream (see AnyStream); a declaration's own types are inferred by defineStream.
// biome-ignore lint/suspicious/noExplicitAny: the defaults of StreamDefinition take any stream (see AnyStream)
type AnyStreamPart = any;

export interface StreamDefinition<
  R = AnyStreamPart,
  S extends SlicePlan = AnyStreamPart,
  C extends SettingsShape = AnyStreamPart,
  N extends string = string,
> {
  name: N;
  /** The endpoint its slices read (src/api/endpoint.ts). */
  endpoint: AnyEndpoint;
  /** Settings the stream adds to `sync`, with their defaults. */
  settings?: C;
  /**
   * The dimensions its slices fan out over: it is planned in a later phase than every stream that provides them
   * (src/engine/plan/plan.ts). May depend on its settings (conversations need topics only when sliced by topic).
   */
  needs?: readonly DimensionName[] | ((sync: SettingsOf<C>) => readonly DimensionName[]);
  /**
   * Synced only when named (`sync.streams`, a schedule's `streams`, `--streams`): its calls are a choice, not a
   * default; default false.
   */
  optIn?: boolean;
  /**
   * For a stream that reads only what a setting lists (the API lists no SWOT statements and no phrases): which setting
   * names nothing for the brand, so that a stream named on purpose is not run to a "complete" of nothing.
   */
  unconfigured?(sync: SettingsOf<C>, brandId: number): string | undefined;
  /** The dimensions its rows give later phases, and how they are read back from the warehouse. */
  provides?: Provides;
  slices(input: SlicePlanInput<C>): S[];
  /** Every table the slice writes, even when a fetch brings no rows: a replace with no rows empties the slice. */
  targets(context: RowContext<S>): TableTarget[];
  /** The pages of a slice, through the client's one `read` of its endpoint. */
  read(context: ReadContext<S, C>): AsyncIterable<SourcePage<R>>;
  /**
   * The record's id, for streams whose slices are paged: the distinct ids must add up to the `total_rows` the API
   * reported, or the slice is fetched again and then marked incomplete.
   */
  recordId?(record: R): string | number;
  /**
   * Another count the API's `total_rows` may mean, where the spec leaves it open, from the distinct ids read: a read
   * whose distinct ids add up to either count is complete.
   */
  otherTotalRows?(ids: ReadonlyArray<string | number>): number;
  /** The rows one record becomes. */
  rows(record: R, context: RowContext<S>): RowsByTable;
  /** Rows a page's `info` becomes (daily totals, counters), once per slice from its last page. */
  infoRows?(page: SourcePage<R>, context: RowContext<S>): RowsByTable;
}

/** Any stream, as the runner and the planner handle them: slices and records are the stream's own business. */
// The parameters are `any` because a declaration's functions take its own record and slice types (contravariant).
export type AnyStream = StreamDefinition;

/** Checks a declaration where it is written and keeps its name's literal type for the registry. */
export function defineStream<
  R = unknown,
  S extends SlicePlan = SlicePlan,
  const N extends string = string,
  C extends SettingsShape = Record<never, never>,
>(definition: StreamDefinition<R, S, C, N>): StreamDefinition<R, S, C, N> {
  return definition;
}

/** The part of a stream the planner needs. */
export type StreamPlanning = Pick<AnyStream, 'name' | 'needs' | 'provides' | 'slices'>;
