import { redactSecrets } from '../log.js';
import { DEFAULT_RETRY_AFTER_MS, parseRetryAfter, retryAfterUnbounded } from './retry-after.js';
import { firstHeader, readRateLimitHeaders, type HeaderBag } from './rate/rate-headers.js';
import { errnoOf, errorMessage } from '../format.js';

/** One entry of `error.details` of the error envelope (spec, "Errors"). */
export interface ApiErrorDetail {
  field: string;
  message: string;
}

export interface ApiErrorFields {
  status?: number | undefined;
  apiCode?: string | undefined;
  details?: ApiErrorDetail[] | undefined;
  requestId?: string | undefined;
  /** `METHOD /path` of the request, without the query or any header. */
  endpoint: string;
}

/**
 * Every failure of an API call: `code` is fixed per class; `apiCode`, `details` and `requestId` come from the envelope.
 * It holds no header or key: the message, from the envelope, goes through `redactSecrets` in case the API echoed it.
 */
export abstract class ApiError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;
  readonly status: number | undefined;
  readonly apiCode: string | undefined;
  readonly details: ApiErrorDetail[] | undefined;
  readonly requestId: string | undefined;
  readonly endpoint: string;

  constructor(message: string, fields: ApiErrorFields) {
    super(redactSecrets(message));
    this.name = new.target.name;
    this.status = fields.status;
    this.apiCode = fields.apiCode === undefined ? undefined : redactSecrets(fields.apiCode);
    this.details = fields.details?.map((d) => ({ field: redactSecrets(d.field), message: redactSecrets(d.message) }));
    this.requestId = fields.requestId === undefined ? undefined : redactSecrets(fields.requestId);
    this.endpoint = redactSecrets(fields.endpoint);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      apiCode: this.apiCode,
      details: this.details,
      requestId: this.requestId,
      endpoint: this.endpoint,
      retryable: this.retryable,
    };
  }
}

/** 429: the key is over its rate. The client has already slowed the whole key; the caller waits `retryAfterMs`. */
export class RateLimitedError extends ApiError {
  readonly code = 'rate_limited';
  readonly retryable = true;
  constructor(
    message: string,
    fields: ApiErrorFields,
    readonly retryAfterMs: number,
  ) {
    super(message, fields);
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs };
  }
}

/**
 * Why a call may be worth another attempt. `bad_envelope` (not the spec's envelope), `other_format` (a 2xx not JSON)
 * and `empty_body` (a 2xx with nothing in it) come back the same as a rule, so they are asked twice only.
 */
export type TransientReason =
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'bad_body'
  | 'bad_envelope'
  | 'other_format'
  | 'empty_body';

/**
 * A call that was waiting (out a 429, for the key's budget, between attempts) when the process began to stop: not
 * the API's answer, and not the slice's failure; the fetch processor hands the slice back to the queue.
 */
export class StoppedWaitingError extends Error {
  readonly code = 'stopped_waiting';
  override readonly name = 'StoppedWaitingError';
}

/** 5xx, a reset, a timeout, a truncated or unparsable body: worth another attempt after a backoff. */
export class TransientError extends ApiError {
  readonly code = 'transient';
  readonly retryable = true;
  constructor(
    message: string,
    fields: ApiErrorFields,
    readonly reason: TransientReason,
    /** A 503's (or any 5xx's) `Retry-After`: the next attempt waits at least this long. */
    readonly retryAfterMs?: number,
  ) {
    super(message, fields);
  }

  /**
   * Set when the transport gives up on a call whose failures were the API's absence (5xx, no connection, timeout) and
   * no other call of its client was answered meanwhile: the fetch processor then waits the outage out.
   */
  apiUnavailable = false;
  /** Set with `apiUnavailable` (ms since the epoch): since when the API answered none of the client's calls. */
  unansweredSince: number | undefined;

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      reason: this.reason,
      ...(this.retryAfterMs === undefined ? {} : { retryAfterMs: this.retryAfterMs }),
      ...(this.apiUnavailable ? { apiUnavailable: true, unansweredSince: this.unansweredSince } : {}),
    };
  }
}

/** Reasons that say the API itself did not answer, rather than answered something unreadable. */
const UNAVAILABLE_REASONS: readonly TransientReason[] = ['server_error', 'network', 'timeout'];

export function isUnavailability(error: ApiError): error is TransientError {
  return error instanceof TransientError && UNAVAILABLE_REASONS.includes(error.reason);
}

/** A failure that another attempt would repeat: never retried. */
export class PermanentError extends ApiError {
  readonly code: string = 'permanent';
  readonly retryable = false;
}

/** 400 or 422: the API rejected the query; `details` names the fields. */
export class ValidationError extends PermanentError {
  override readonly code = 'validation_error';
}

/** Reasons of a parsed answer whose envelope does not match the spec (src/api/client.ts, getEnvelope). */
const BAD_ENVELOPE_REASONS: readonly TransientReason[] = ['bad_envelope', 'other_format', 'empty_body'];

export function isBadEnvelope(error: unknown): boolean {
  return error instanceof TransientError && BAD_ENVELOPE_REASONS.includes(error.reason);
}

/** 401 (or a 403 other than brand access or throttling): the key is wrong or lacks a right. */
export class AuthError extends PermanentError {
  override readonly code = 'unauthorized';
}

/**
 * Whether a refusal is of the key rather than one endpoint: a 401, or a 403 whose code names the key or authentication
 * (`invalid_api_key`); a 403 with another code (`insufficient_scope`) may be one endpoint a plan lacks.
 */
export function refusesKey(error: AuthError): boolean {
  if (error.status === 401) return true;
  const letters = (error.apiCode ?? '').toLowerCase().replace(/[^a-z]/g, '');
  return /key|auth|token|credential|unauthori[sz]ed|unauthenticated/.test(letters);
}

/**
 * A 429 whose code names a quota or a period: the key has spent its plan, and a short wait does not help. The slice
 * fails at once and the key is remembered as refused (src/engine/fetch/access-memo.ts).
 */
export class QuotaExceededError extends PermanentError {
  override readonly code = 'quota_exceeded';
  constructor(
    message: string,
    fields: ApiErrorFields,
    /** The answer's `Retry-After`, not bounded as a rate limit's is: when the quota comes back, if it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message, fields);
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), ...(this.retryAfterMs === undefined ? {} : { retryAfterMs: this.retryAfterMs }) };
  }
}

/** `brand_access_denied`, whatever its status: the key cannot read this brand; that brand fails, others go on. */
export class BrandAccessDeniedError extends PermanentError {
  override readonly code = 'brand_access_denied';
}

/** 404 (except the domain detail of a domain without citations, which is an empty result). */
export class NotFoundError extends PermanentError {
  override readonly code = 'not_found';
}

/**
 * Whether a 404 is the spec's "nothing in the range": it comes in the API's envelope, unlike a gateway's page for a
 * wrong path. The client reads it as an empty page, the transport counts it `empty` (client.test.ts, "counted empty").
 */
export function isEmptyAnswer(error: unknown): boolean {
  return error instanceof NotFoundError && error.apiCode !== undefined;
}

/** The API ignored the paging parameter (a wrong `api.params` mapping): paging would never end. */
export class PagingError extends PermanentError {
  override readonly code = 'paging_mismatch';
}

/** The error envelope of the spec ("Errors"), read defensively: any part may be missing. */
export interface ErrorEnvelopeFields extends Pick<ApiErrorFields, 'apiCode' | 'details' | 'requestId'> {
  message?: string | undefined;
}

export function readErrorEnvelope(body: unknown): ErrorEnvelopeFields {
  const error = (body as { error?: unknown } | null | undefined)?.error;
  if (typeof error !== 'object' || error === null) return {};
  const e = error as Record<string, unknown>;
  const details = Array.isArray(e.details)
    ? e.details
        .filter((d): d is Record<string, unknown> => typeof d === 'object' && d !== null)
        .map((d) => ({ field: String(d.field ?? ''), message: String(d.message ?? '') }))
    : undefined;
  return {
    apiCode: typeof e.code === 'string' ? e.code : undefined,
    message: typeof e.message === 'string' ? e.message : undefined,
    details,
    requestId: typeof e.request_id === 'string' ? e.request_id : undefined,
  };
}

export interface ErrorResponse {
  status: number;
  /** Response headers as undici gives them (lower-case names). Only `retry-after` is read. */
  headers: HeaderBag;
  /** The parsed JSON body, or `undefined` when it was not JSON. */
  body: unknown;
  endpoint: string;
  /** The body as text, shown in part when it is not the spec's error envelope (an HTML page of a proxy). */
  text?: string | undefined;
  /** Why the body could not be read (cut short, not decodable), when it could not: the status still says what happened. */
  unreadBody?: string | undefined;
  /** The wait of a rate limit that names none (no usable Retry-After); default DEFAULT_RETRY_AFTER_MS. */
  namelessWaitMs?: number | undefined;
}

/** Turns a non-2xx answer into its error class. Pure: the caller decides what to do with it. */
export function classifyResponse(response: ErrorResponse, now: number = Date.now()): ApiError {
  const { status, endpoint } = response;
  const envelope = readErrorEnvelope(response.body);
  const fields: ApiErrorFields = { status, endpoint, ...envelope };
  const what = envelope.apiCode ? `${status} ${envelope.apiCode}` : `${status}`;
  const text = `${endpoint}: HTTP ${what}${envelope.message ? `: ${envelope.message}` : ''}${
    envelope.details?.length ? ` [${envelope.details.map((d) => `${d.field}: ${d.message}`).join('; ')}]` : ''
  }${envelope.requestId ? ` (request ${envelope.requestId})` : ''}${envelope.apiCode || envelope.message ? '' : notAnEnvelope(response)}`;

  // A 429 naming a quota or a period is not cured by a wait of seconds, unless its Retry-After is a minute at most
  // (test/api/errors.test.ts, "429 whose code names a quota or a period is a spent quota").
  const retryAfter = parseRetryAfter(response.headers['retry-after'], now);
  const quotaBack = retryAfterUnbounded(response.headers['retry-after'], now);
  if (
    status === 429 &&
    envelope.apiCode !== undefined &&
    namesQuota(envelope.apiCode) &&
    !(retryAfter !== undefined && retryAfter <= QUOTA_WAIT_MAX_MS)
  ) {
    return new QuotaExceededError(text, fields, quotaBack);
  }
  // A wait of hours is no rate's window but a spent quota, whatever the code says (docs/quota.md).
  if (status === 429 && quotaBack !== undefined && quotaBack >= SPENT_QUOTA_RETRY_AFTER_MS)
    return new QuotaExceededError(text, fields, quotaBack);
  if (status === 429 || isThrottling(response, envelope, now)) {
    return new RateLimitedError(text, fields, retryAfter ?? response.namelessWaitMs ?? DEFAULT_RETRY_AFTER_MS);
  }
  if (isApiAbsence(status)) return new TransientError(text, fields, 'server_error', retryAfter);
  // The spec names this code and not its status: it refuses one brand, whatever the status (test/api/errors.test.ts).
  if (envelope.apiCode === 'brand_access_denied') return new BrandAccessDeniedError(text, fields);
  // 422 is how many frameworks answer a query they validated and refused; the spec shows no status for it.
  if (status === 400 || status === 422) return new ValidationError(text, fields);
  if (status === 401 || status === 403) return new AuthError(text, fields);
  if (status === 404) return new NotFoundError(text, fields);
  return new PermanentError(text, fields);
}

/**
 * Whether an error code names a rate limit, by its letters alone (`rate_limited`, `ThrottlingException`);
 * one that also names a period, quota or batch (`monthly_rate_limit_exceeded`) is not cured by a short wait.
 */
function namesRateLimit(apiCode: string): boolean {
  const letters = apiCode.toLowerCase().replace(/[^a-z]/g, '');
  return /ratelimit|throttl|toomanyrequests/.test(letters) && !namesQuota(apiCode);
}

/** A 429 whose `Retry-After` is this long or longer is read as a spent quota, not a rate limit. */
const SPENT_QUOTA_RETRY_AFTER_MS = 60 * 60_000;

/** The longest `Retry-After` with which a 429 naming a quota or a period is still waited out. */
const QUOTA_WAIT_MAX_MS = 60_000;

/** Whether an error code names a quota, a period or a plan (`insufficient_quota`, `DailyLimitExceeded`), word by word. */
function namesQuota(apiCode: string): boolean {
  const words = apiCode
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z]+/);
  return words.some((word) =>
    /^(hour|hourly|day|daily|week|weekly|month|monthly|year|yearly|annual|quota|quotas|batch|plan|billing|credit|credits)$/.test(
      word,
    ),
  );
}

/**
 * A rate limit in another status: a 4xx or 5xx whose code names one, a 403 naming one with its window spent, or a 403
 * without an envelope that says when to come back. Another code is the refusal it says ("is throttling").
 */
function isThrottling(response: ErrorResponse, { apiCode, message }: ErrorEnvelopeFields, now: number): boolean {
  if (response.status < 400) return false;
  if (apiCode !== undefined && namesRateLimit(apiCode)) return true;
  // A 403 under its own code whose message names a rate limit (GitHub's way), with its window said spent.
  if (response.status === 403 && message !== undefined && namesRateLimit(message) && windowSpent(response, now))
    return true;
  if (apiCode !== undefined) return false;
  const envelope = typeof (response.body as { error?: unknown } | undefined)?.error === 'object';
  return response.status === 403 && !envelope && parseRetryAfter(response.headers['retry-after'], now) !== undefined;
}

/** Whether an answer's headers say its key's window is spent (`remaining` 0) or when to come back (`Retry-After`). */
function windowSpent(response: ErrorResponse, now: number): boolean {
  return (
    parseRetryAfter(response.headers['retry-after'], now) !== undefined ||
    readRateLimitHeaders(response.headers, now).remaining === 0
  );
}

/**
 * What an answer without the spec's error envelope showed: where a redirect points (not followed: the key would go
 * with it), else its content type and first characters, so a proxy's or a login page's answer can be told apart.
 */
function notAnEnvelope(response: ErrorResponse): string {
  const location = firstHeader(response.headers, 'location');
  if (response.status >= 300 && response.status < 400) {
    return location
      ? ` to ${location}; bvsync does not follow redirects (the key would go with them): check api.url`
      : '; check api.url';
  }
  if (response.unreadBody !== undefined) return ` (its body could not be read: ${response.unreadBody})`;
  return describeBody(firstHeader(response.headers, 'content-type'), response.text);
}

/**
 * ` (text/html: "<html><title>502 Bad Gateway…")`: a body that is not the JSON expected, in brief; empty without one.
 * The key is masked before the body is cut, so a cut cannot leave part of it.
 */
export function describeBody(contentType: string | undefined, text: string | undefined): string {
  if (!text) return '';
  const start = redactSecrets(text.replace(/\s+/g, ' ').trim()).slice(0, 80);
  return ` (${contentType ?? 'no content type'}, ${text.length} characters: "${start}${text.length > 80 ? '…' : ''}")`;
}

/**
 * Node's codes of a TLS certificate it does not trust (expired, self-signed, of another host, of an unknown CA): the
 * same answer every time, so not retried.
 */
const CERTIFICATE_CODES =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT|VERIFY_LEAF_SIGNATURE|GET_ISSUER_CERT_LOCALLY|DECRYPT_CERT_SIGNATURE)|ERR_TLS_CERT_ALTNAME_INVALID|INVALID_CA|INVALID_PURPOSE|HOSTNAME_MISMATCH)/;

/** The API's TLS certificate is not trusted: every retry meets it again, so it is not retried. */
export class TlsCertificateError extends PermanentError {
  override readonly code = 'tls_certificate';
}

/** A failure to trust the API's certificate as its error (code and message only), or undefined for any other failure. */
export function classifyCertificateError(error: unknown, endpoint: string): TlsCertificateError | undefined {
  const code = errnoOf(error);
  if (code === undefined || !CERTIFICATE_CODES.test(code)) return undefined;
  const message = errorMessage(error);
  return new TlsCertificateError(
    `${endpoint}: the API's TLS certificate is not trusted (${code}: ${message}); check api.url, and for a private certificate authority set NODE_EXTRA_CA_CERTS to its certificate`,
    { endpoint },
  );
}

/** undici's codes of failures that happen before or while the answer arrives. */
const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * A failure without an HTTP status (reset, refused, timeout, deadline, body cut short) as a `TransientError`, of its
 * code and message only: undici errors can hold sockets and request options.
 */
export function classifyNetworkError(
  error: unknown,
  endpoint: string,
  deadlineExceeded = false,
  deadlineMs?: number,
): TransientError {
  const code = errnoOf(error);
  const name = error instanceof Error ? error.name : 'Error';
  const message = errorMessage(error);
  const timedOut = deadlineExceeded || (code !== undefined && TIMEOUT_CODES.has(code)) || name === 'TimeoutError';
  const reason: TransientReason = timedOut ? 'timeout' : 'network';
  const label = deadlineExceeded
    ? `request deadline exceeded${deadlineMs === undefined ? '' : ` (api.requestTimeoutMs ${deadlineMs})`}`
    : `${code ?? name}: ${message}`;
  return new TransientError(`${endpoint}: ${label}`, { endpoint }, reason);
}

/** The API's absence rather than its answer: a 5xx or a 408. A 4xx and a 429 are answers (test/api/errors.test.ts). */
export function isApiAbsence(status: number): boolean {
  return status >= 500 || status === 408;
}
