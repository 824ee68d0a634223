import {
  ApiError,
  AuthError,
  BrandAccessDeniedError,
  NotFoundError,
  PagingError,
  PermanentError,
  QuotaExceededError,
  RateLimitedError,
  StoppedWaitingError,
  TlsCertificateError,
  TransientError,
  ValidationError,
  type ApiErrorFields,
  type ApiRequestEvent,
  type TransientReason,
} from '../../api/index.js';
import { redactSecrets } from '../../log.js';
import type { SliceReadResult } from '../../streams/run-slice.js';
import type { FetchJobData } from '../jobs/job-data.js';
import type { Tally } from '../run/request-tally.js';
import { QuotaWaitError, type QuotaClass } from '../../api/rate/request-quota.js';
import { RunCancelledError, RunGaveUpError } from '../run/run-cancel-watch.js';
import type { Config } from '../../configuration.js';

/** What a fetch thread is started with (`workerData`): plain JSON, since it crosses the thread boundary by copy. */
export interface FetchThreadSetup {
  config: Config;
  redisUrl: string;
  /** The process logger's level, so a thread logs what the process would. */
  logLevel: string;
  /** Rows per chunk; default 5,000. */
  chunkRows?: number;
  /** This thread's share of `api.connections`: the threads together keep the pool the process would have had. */
  connections: number;
}

/** One slice to read: where its chunks go (`token`) and what its earlier attempts already cost (`tally`). */
export interface ReadSliceRequest {
  type: 'read';
  id: number;
  data: FetchJobData;
  token: string;
  tally: Tally;
  /** The request budget's class the slice's requests count against (docs/quota.md); absent without a budget. */
  quotaClass?: QuotaClass;
}

/** Main thread to fetch thread. `abort` ends every request in flight (the host's stop deadline passed). */
export type ToFetchThread = ReadSliceRequest | { type: 'abort' } | { type: 'stop-waiting' };

/** Fetch thread to main thread. */
export type FromFetchThread =
  | { type: 'read'; id: number; result: SliceReadResult; chunks: number; tally: Tally }
  | { type: 'failed'; id: number; error: SerializedError; tally: Tally }
  /** Every HTTP attempt, for the process-wide counters, metrics and pausing the fetch queue on a 429. */
  | { type: 'request'; event: ApiRequestEvent }
  /** One log line as pino wrote it (JSON, secrets already masked), for the process logger to print. */
  | { type: 'log'; line: string };

/** An error as it crosses the thread boundary: structured clone keeps neither an error's class nor its fields. */
export interface SerializedError {
  name: string;
  message: string;
  /** When a QuotaWaitError's slice may go on (ms, the quota's clock). */
  resumesAt?: number;
  api?: SerializedApi;
}

type SerializedApi = ApiErrorFields & {
  retryable: boolean;
  retryAfterMs?: number;
  reason?: TransientReason;
  apiUnavailable?: boolean;
  unansweredSince?: number;
};

export function serializeError(error: unknown): SerializedError {
  // An ApiError's log line (toJSON) holds every field its class is built from (test/engine/fetch-thread-messages.test.ts).
  if (error instanceof ApiError)
    return { name: error.name, message: error.message, api: error.toJSON() as unknown as SerializedApi };
  if (error instanceof QuotaWaitError) return { name: error.name, message: error.message, resumesAt: error.resumesAt };
  if (error instanceof Error) return { name: error.name, message: redactSecrets(error.message) };
  return { name: 'Error', message: redactSecrets(String(error)) };
}

type PermanentClass = new (message: string, fields: ApiErrorFields) => PermanentError;

/** The permanent classes the fetch processor tells apart (auth and brand access are remembered; all stop retries). */
const PERMANENT_CLASSES: Record<string, PermanentClass> = {
  ValidationError,
  AuthError,
  BrandAccessDeniedError,
  NotFoundError,
  PagingError,
  QuotaExceededError,
  TlsCertificateError,
};

/**
 * The error the thread met, as the class the fetch processor decides on (retry, pause, remember a refusal). A class
 * not listed keeps what decides: retryable or not.
 */
export function reviveError(serialized: SerializedError): Error {
  const { api } = serialized;
  if (serialized.name === 'RunCancelledError') return new RunCancelledError(serialized.message);
  if (serialized.name === 'RunGaveUpError') return new RunGaveUpError(serialized.message);
  if (serialized.name === 'StoppedWaitingError') return new StoppedWaitingError(serialized.message);
  if (serialized.name === 'QuotaWaitError' && serialized.resumesAt !== undefined)
    return new QuotaWaitError(serialized.resumesAt);
  if (!api) return Object.assign(new Error(serialized.message), { name: serialized.name });
  const { retryable, retryAfterMs, reason, apiUnavailable, unansweredSince, ...fields } = api;
  if (serialized.name === 'RateLimitedError')
    return new RateLimitedError(serialized.message, fields, retryAfterMs ?? 0);
  if (retryable) {
    const transient = new TransientError(serialized.message, fields, reason ?? 'network', retryAfterMs);
    transient.apiUnavailable = apiUnavailable === true;
    transient.unansweredSince = unansweredSince;
    return transient;
  }
  if (serialized.name === 'QuotaExceededError') return new QuotaExceededError(serialized.message, fields, retryAfterMs);
  const permanent = PERMANENT_CLASSES[serialized.name] ?? PermanentError;
  return new permanent(serialized.message, fields);
}
