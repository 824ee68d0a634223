/** The version of the JSON payload: raised when a field changes meaning or goes; new optional fields keep it. */
export const PAYLOAD_VERSION = 1;

/** Most slice errors a run notice carries; the rest are in `bvsync status` and `_sync_state`. */
export const FIRST_ERRORS = 5;

/** One slice's failure in a run notice. */
export interface NoticeError {
  brand: number;
  stream: string;
  slice: string;
  code: string | null;
  message: string;
}

/** A finished run that failed or is incomplete (events `run_failed`, `run_incomplete`). */
export interface RunNotice {
  event: 'run_failed' | 'run_incomplete';
  run: {
    id: string;
    kind: string;
    status: string;
    brands: number[];
    streams: string[];
    from: string | null;
    to: string | null;
    startedAt: string;
    finishedAt: string | null;
    /** Why the run as a whole failed, when it is not a slice's fault (a load job that failed for good). */
    error: string | null;
  };
  counts: {
    slices: number;
    done: number;
    failed: number;
    incomplete: number;
    rows: number;
    requests: number;
    rateLimited: number;
  };
  /** The first failed slices (at most FIRST_ERRORS), when the process that sends knows them. */
  errors: NoticeError[];
}

/** Brands and streams whose newest complete day is older than `notify.staleAfterHours` (event `stale`). */
export interface StaleNotice {
  event: 'stale';
  staleAfterHours: number;
  stale: Array<{ brand: number; stream: string; newestCompleteDay: string; ageHours: number }>;
}

/** The API refused the key itself (event `key_refused`). */
export interface KeyRefusedNotice {
  event: 'key_refused';
  code: string;
  message: string;
}

/** The machine bvsync runs on failed it: Redis away, a disk full or failing (event `machine_fault`). */
export interface MachineFaultNotice {
  event: 'machine_fault';
  /** What failed: `redis`, `disk`, or another part later features name. */
  component: string;
  code: string;
  message: string;
}

/**
 * Days whose rows still disagree with the API's range answers after `sync.heal` re-read them (event
 * `verify_disagreement`): told once, when they first survive a re-read (docs/healing.md).
 */
export interface VerifyDisagreementNotice {
  event: 'verify_disagreement';
  /** The scheduled run whose healing round found them. */
  run: string;
  window: { from: string; to: string };
  disagreements: Array<{ brand: number; family: string; day: string }>;
}

/**
 * What a run loaded first that the spec does not show (event `schema_drift`): new `_extra` fields, enum values outside
 * the spec's lists, engines not seen before. Sent once per entry: `_schema_drift` records who saw it first.
 */
export interface SchemaDriftNotice {
  event: 'schema_drift';
  run: { id: string };
  drift: Array<{
    table: string;
    kind: string;
    name: string;
    value: string;
    rows: number;
    example: string | null;
    looksLike: string | null;
  }>;
}

export type Notice =
  | RunNotice
  | StaleNotice
  | KeyRefusedNotice
  | MachineFaultNotice
  | VerifyDisagreementNotice
  | SchemaDriftNotice;
