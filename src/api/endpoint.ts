import type { z } from 'zod';
import type { QueryValue } from './query.js';

/**
 * One read endpoint of the spec as data: where it is, which query it sends, what its answer looks like. `O` is the
 * caller's options, `Q` the default query parameter names (wire names through `api.params`); declared with its stream.
 */
export interface Endpoint<R, I, O, Q extends string = string> {
  /**
   * The path under the brand, placeholders in braces (`reports/visibility/topics`, `citations/domains/{domain}`): how
   * `api.endpointParams` and doctor's table name the endpoint.
   */
  name: string;
  /** Path segments under `/customer/v1/brands/{brand_id}`; the client percent-encodes each. */
  path(options: O): ReadonlyArray<string | number>;
  /** Every query parameter the endpoint may send (paging names aside): `api.params` is checked against them. */
  params: readonly Q[];
  /** The query of one read; `undefined` values are left out, and an absent `engines` gets `api.engines`. */
  query(options: O): Partial<Record<Q, QueryValue>>;
  /** The answer's envelope; records are validated one by one afterwards with `record`. */
  envelope: z.ZodType<{ data?: unknown; info?: I | null | undefined }>;
  record: z.ZodType<R>;
  /** A paged endpoint's largest `page_size` (spec, "Limits"); absent: the answer comes whole in one response. */
  maxPageSize?: number;
  /** `data` is one object, not a list (a domain's detail). */
  single?: boolean;
  /** A 404 means "nothing in the range" rather than a missing resource: the read yields one empty page. */
  notFoundIsEmpty?: boolean;
}

/** Any endpoint, for code that handles them alike (the client, doctor's table of parameters). */
// biome-ignore lint/suspicious/noExplicitAny: any endpoint, whatever its record, item and params types
export type AnyEndpoint = Endpoint<any, any, any, string>;

/** Keeps a declaration's types as written (records, options, parameter names) while checking it. */
export function defineEndpoint<R, I, O, const Q extends string>(endpoint: Endpoint<R, I, O, Q>): Endpoint<R, I, O, Q> {
  return endpoint;
}

/** The range filter most endpoints share: a day (`YYYY-MM-DD`, or a `Date` whose UTC day is sent) or an ISO 8601 datetime. */
export type DayOrTime = string | Date;

export interface RangeFilter {
  startDate?: DayOrTime;
  endDate?: DayOrTime;
}

export interface EngineFilter {
  /** Engine identifiers; default `api.engines`, and when that is empty none (the API's defaults apply). */
  engines?: readonly string[];
}

/** The range and engine filters under their default parameter names. */
export function rangeQuery(options: RangeFilter & EngineFilter) {
  return { start_date: options.startDate, end_date: options.endDate, engines: options.engines };
}

export const RANGE_PARAMS = ['start_date', 'end_date', 'engines'] as const;
