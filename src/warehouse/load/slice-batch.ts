import type { SliceStatus } from '../../vocabulary.js';
import type { AppliedQuery } from '../provenance.js';

/**
 * What a fetched slice hands to the loader: its tables' rows and how its earlier rows are replaced, its rejects and
 * state, all applied in one transaction, so a slice is either wholly the old one or wholly the new one.
 */

/** A column value as rows carry it: DATE columns as `YYYY-MM-DD`, TIMESTAMPTZ as ISO 8601, JSON as objects. */
export type CellValue =
  | string
  | number
  | boolean
  | bigint
  | null
  | Date
  | readonly unknown[]
  | { readonly [key: string]: unknown };

export type Row = Record<string, CellValue | undefined>;

/** Equality (or membership, for an array) on one column, e.g. `{ brand_id: 7, day: '2026-11-20' }`. */
export type Scope = Record<string, string | number | boolean | ReadonlyArray<string | number>>;

export type TableWrite =
  /** Entities: rows upserted by the table's primary key; rows not in the batch stay. */
  | { table: string; mode: 'merge'; rows: Row[] }
  /** Per-slice facts: every row matching `scope` is deleted, then `rows` inserted (deduplicated by key). */
  | { table: string; mode: 'replace'; scope: Scope; rows: Row[] };

export interface RejectedRecord {
  /** The raw record as the API sent it. */
  raw: unknown;
  /** Readable validation issues, e.g. `date: Invalid ISO datetime`. */
  issues: string[];
  /** Where it came from, e.g. `GET /customer/v1/brands/7/conversations page 3`. */
  source: string;
}

export interface SliceState {
  status: SliceStatus;
  /** Distinct records loaded for the slice. */
  rows: number;
  /** What the API's `total_rows` said, when it says anything. */
  totalRows: number | null;
  attempts: number;
  requests: number;
  lastError: string | null;
  /** The API's error code and request id of the failure, when the API gave them. */
  errorCode?: string | null;
  requestId?: string | null;
  /** Requests of the slice that were retries, and 429 answers it met; summed into `_sync_runs`. */
  retries?: number;
  rateLimited?: number;
}

export interface SliceBatch {
  runId: string;
  brandId: number;
  stream: string;
  /** Stable within a stream: `2026-11-20`, `2026-11-20/topic-3`, `all`, `example.com/2026-11-20`. */
  sliceKey: string;
  /** The UTC day the slice covers, when it covers one. */
  day: string | null;
  writes: TableWrite[];
  rejects: RejectedRecord[];
  state: SliceState;
  /**
   * The attempt came out worse than the stored state (a failure, or an incomplete read of a complete slice): it carries
   * no writes or rejects, and is recorded beside the stored ones (`_sync_state.last_attempt_*`) and in run counters.
   */
  attemptOnly?: boolean;
  /** The query the slice's answer says was applied (`info.query`), written to `_slice_queries` with its rows. */
  appliedQuery?: AppliedQuery;
  /** How the read went on the wire (src/api/read-settings.ts), for `_sync_state.read_with`; kept by a failed load. */
  readWith?: string;
  /** The fetch's token, recorded with the commit so that a replay of its commit job is known (slice-commits.ts). */
  token?: string;
}

/** How good an outcome is, for "a worse attempt never replaces a better state". */
const SLICE_STATUS_RANK: Readonly<Record<SliceStatus, number>> = { failed: 0, incomplete: 1, complete: 2 };

/** Whether an attempt ending `attempt` must leave a slice stored as `stored` as it is. */
export function attemptIsWorse(attempt: SliceStatus, stored: SliceStatus | null | undefined): boolean {
  return stored != null && SLICE_STATUS_RANK[attempt] < SLICE_STATUS_RANK[stored];
}
