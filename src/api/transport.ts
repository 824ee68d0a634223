import { setMaxListeners } from 'node:events';
import { Pool, type Dispatcher } from 'undici';
import type { ApiConfig } from '../config/schema.js';
import type { Logger } from '../log.js';
import { KeyAnswers } from './key-answers.js';
import {
  ApiError,
  RateLimitedError,
  StoppedWaitingError,
  TransientError,
  classifyCertificateError,
  classifyNetworkError,
  classifyResponse,
  describeBody,
  isApiAbsence,
  isBadEnvelope,
  isEmptyAnswer,
  isUnavailability,
} from './errors.js';
import { UNLIMITED_RATE_BUDGET, sleep, type RateBudget } from './rate/rate-budget.js';
import { firstHeader, readRateLimitHeaders, type HeaderBag } from './rate/rate-headers.js';
import { ACCEPTED_ENCODINGS, readResponseText } from './response-body.js';
import { DEFAULT_RETRY_AFTER_MS, backoffDelay, parseRetryAfter } from './retry-after.js';
import { errorMessage } from '../format.js';

/** The connections of an API client (and of doctor's, which strips refused names): `api.connections`, its timeouts. */
export function apiPool(
  api: Pick<ApiConfig, 'connections' | 'headersTimeoutMs' | 'bodyTimeoutMs'> & { url: string },
): Pool {
  return new Pool(new URL(api.url).origin, {
    connections: api.connections,
    headersTimeout: api.headersTimeoutMs,
    bodyTimeout: api.bodyTimeoutMs,
    keepAliveTimeout: 30_000,
    pipelining: 1,
  });
}

/** U+FEFF, which some servers put before a UTF-8 body. */
const BYTE_ORDER_MARK = 0xfeff;

/** The longest wait of a rate limit that names none, however many came in a row: an API's window of a minute. */
const MAX_NAMELESS_WAIT_MS = 60_000;

/** What the `onRequest` hook hears after every HTTP attempt (for counting requests, retries and 429s). */
export interface ApiRequestEvent {
  /** `GET /customer/v1/brands/7/conversations` (no query). */
  endpoint: string;
  /** 1 for the first try of this call, 2 for its first retry, and so on. */
  attempt: number;
  status: number | undefined;
  /** ok: answered; retry: failed and will be tried again; rate_limited: a 429; failed: given up; aborted: stopped by its caller once sent. */
  outcome: 'ok' | 'empty' | 'retry' | 'rate_limited' | 'failed' | 'aborted';
  /**
   * When the client last heard the API answer (ms since the epoch), on an attempt it answered: the time its calls'
   * outage judgement uses, so that a process adding up several clients (fetch threads) judges by the same clock.
   */
  answeredAt?: number;
  /** The error class's fixed code when the attempt failed. */
  errorCode?: string;
  /** How long the API asked the key to wait, on a 429. */
  retryAfterMs?: number;
  durationMs: number;
}

/** How long a call's wait may go on once the process stops: pacing's waits end within it, a 429's do not. */
const STOP_WAIT_GRACE_MS = 1_000;

/** How many 429s in a row one call waits out when `retryRateLimited` is on. */
const MAX_RATE_LIMIT_RETRIES = 20;

export interface TransportOptions {
  /** Where retries and 429s are logged (never with the key); default: silent. */
  logger?: Logger | undefined;
  /** The key's shared rate budget; default: none (no client-side limit). */
  budget?: RateBudget | undefined;
  /** Hears every HTTP attempt, to count requests, retries and 429s. */
  onRequest?: ((event: ApiRequestEvent) => void) | undefined;
  /** Aborts every request of the client (shutdown). */
  signal?: AbortSignal | undefined;
  /**
   * Aborted when the process begins to stop: a call still waiting (out a 429, for the key's budget, between attempts)
   * a second later ends with a `StoppedWaitingError`; a call on the wire goes on until `signal`.
   */
  stopWaiting?: AbortSignal | undefined;
  /** Wait and retry 429s inside the client (doctor, benchmarks, tests outside BullMQ); default false: throw `RateLimitedError`. */
  retryRateLimited?: boolean | undefined;
  /**
   * How long a call meeting the API away (5xx, no answer, timeout) retries while no call of the client is answered
   * (default: its attempts); also how long 429s are waited out once the client hears nothing else.
   */
  unansweredForMs?: number | undefined;
  /** Replaces the connection pool (tests use undici's MockAgent). */
  dispatcher?: Dispatcher | undefined;
}

/** One call: a GET, or a POST or PATCH with a JSON body (spec, "Endpoints", shared rules). */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH';
  /** The path below the base URL, query included. */
  path: string;
  /** `METHOD /path` without the query: what logs and errors name. */
  endpoint: string;
  signal?: AbortSignal | undefined;
  /** The endpoint answers "nothing in the range" with a 404 (`Endpoint.notFoundIsEmpty`): such an answer is `empty`. */
  notFoundIsEmpty?: boolean | undefined;
  /** Sent as JSON; absent for a GET and a write without a body (restore, endpoint 5). */
  body?: unknown;
  /**
   * The idempotency header, name and value. Only a write that carries one is retried: sending it again makes the
   * API answer the first answer instead of writing twice, which nothing else can promise.
   */
  idempotency?: { header: string; value: string } | undefined;
}

/**
 * The one place that sends HTTP: pool, auth, deadlines, the rate budget, full-jitter retries and typed errors. 429s are
 * not retried by undici, which would wait per request: here a 429 slows the whole key.
 */
export class Transport {
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly budget: RateBudget;
  /** Rate-limit headers already reported as unreadable: each is logged once, not on every answer. */
  private readonly unreadableHeaders = new Set<string>();
  /** When the API last answered any call of this client (`answers`; ms since the epoch). */
  private lastAnsweredAt = Number.NEGATIVE_INFINITY;
  /** What the client heard on its key: since when it has had nothing but rate limits. */
  private readonly heard = new KeyAnswers();
  /**
   * Rate limits in a row that named no wait, and when the last one's wait ends: each episode begun after the last
   * wait ended waits twice as long, up to a minute, because an API may count per minute. test/api/client.test.ts.
   */
  private namelessRateLimits = 0;
  private namelessWaitEnds = 0;

  constructor(
    private readonly config: ApiConfig & { url: string; apiKey: string },
    private readonly options: TransportOptions = {},
  ) {
    const url = new URL(config.url);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.budget = options.budget ?? UNLIMITED_RATE_BUDGET;
    // One listener per waiting call, removed after: up to sync.fetchConcurrency (at most 64); a leak still warns.
    if (options.stopWaiting) setMaxListeners(128, options.stopWaiting);
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? apiPool(config);
  }

  /**
   * Sends a call and hands its JSON answer to `accept`, which returns the typed value or throws (a broken envelope is
   * transient). A write is retried only when it carries an idempotency value.
   */
  async send<T>(request: ApiRequest, accept: (body: unknown) => T): Promise<T> {
    const signal = combine(this.options.signal, request.signal);
    const maxAttempts = this.config.maxAttempts;
    let attempt = 0;
    let rateLimited = 0;
    const callStartedAt = Date.now();
    // When the first attempt that met the API away was sent: the waits before it (the key's budget, a 429) asked nothing.
    let firstAwayAt: number | undefined;
    for (;;) {
      attempt += 1;
      await this.waiting(request, signal, (waitSignal) => this.budget.acquire(waitSignal));
      const sentAt = Date.now();
      const started = performance.now();
      let status: number | undefined;
      try {
        const answer = await this.once(request, signal);
        status = answer.status;
        const value = accept(answer.body);
        const durationMs = performance.now() - started;
        this.emit({ endpoint: request.endpoint, attempt, status, outcome: 'ok', durationMs });
        return value;
      } catch (thrown) {
        if (signal?.aborted) {
          // Stopped by its caller (a cancel, a shutdown) once sent: the API may well have counted it, so it is counted.
          const durationMs = performance.now() - started;
          this.emit({ endpoint: request.endpoint, attempt, status, outcome: 'aborted', durationMs });
          throw signal.reason;
        }
        // Everything `once` and `accept` throw on purpose is an ApiError; anything else is a bug, not a retry.
        if (!(thrown instanceof ApiError)) throw thrown;
        const error = thrown;
        if (isUnavailability(error)) firstAwayAt ??= sentAt;
        const toleranceLeft = this.toleranceLeft(error, firstAwayAt);
        const awayTooLong = toleranceLeft !== undefined && toleranceLeft <= 0;
        const durationMs = performance.now() - started;
        const base = {
          endpoint: request.endpoint,
          attempt,
          status: error.status ?? status,
          errorCode: error.code,
          durationMs,
        };
        if (error instanceof RateLimitedError) {
          // The budget has already blocked the key and cut its rate (tellBudget).
          this.emit({ ...base, outcome: 'rate_limited', retryAfterMs: error.retryAfterMs });
          this.options.logger?.warn(
            { endpoint: request.endpoint, retryAfterMs: error.retryAfterMs },
            'rate limited: the key is slowed',
          );
          // A 429 was never served, so even a write without an idempotency value may go again; not past the outage
          // tolerance, as a key answered only 429s that long is an API away (fetch-processor.ts).
          const tolerated = this.options.unansweredForMs;
          const limitedSince = this.heard.rateLimitedSince();
          const limitedTooLong =
            tolerated !== undefined && limitedSince !== undefined && Date.now() - limitedSince >= tolerated;
          if (this.options.retryRateLimited && rateLimited < MAX_RATE_LIMIT_RETRIES && !limitedTooLong) {
            rateLimited += 1;
            attempt -= 1; // a 429 is not a failed attempt: the request was never served
            await this.waiting(request, signal, (waitSignal) => sleep(error.retryAfterMs, waitSignal));
            continue;
          }
          throw error;
        }
        const repeatable = request.method === 'GET' || request.idempotency !== undefined;
        if (error.retryable && repeatable && attempt < attemptsFor(error, maxAttempts) && !awayTooLong) {
          const backoff = backoffDelay(attempt, { baseMs: this.config.retryBaseMs, maxMs: this.config.retryMaxMs });
          // A server that names its wait (503 with Retry-After: maintenance, overload) is not asked sooner, up to
          // api.retryMaxMs or, for the API away, what is left of the outage tolerance. test/api/client.test.ts.
          const named = Math.min(
            (error instanceof TransientError && error.retryAfterMs) || 0,
            Math.max(this.config.retryMaxMs, toleranceLeft ?? 0),
          );
          const delay = Math.max(backoff, named);
          // The wait is the whole API's, not this call's: every call of the key holds back for it, so a 503 during a
          // restart is not met again by each slice in flight.
          if (named > 0 && isUnavailability(error))
            await this.toBudget(request.endpoint, 'the rate budget could not hold the key back', () =>
              this.budget.blockFor(named),
            );
          this.emit({ ...base, outcome: 'retry' });
          this.options.logger?.warn(
            {
              endpoint: request.endpoint,
              attempt,
              code: error.code,
              status: error.status,
              delayMs: delay,
              error: error.message,
            },
            'transient API failure; retrying',
          );
          await this.waiting(request, signal, (waitSignal) => sleep(delay, waitSignal));
          continue;
        }
        // No other call was answered while this one failed, or for as long as an outage is waited out: the API is away,
        // which the fetch processor waits out.
        const unansweredThroughout = this.lastAnsweredAt < callStartedAt;
        if (isUnavailability(error) && (unansweredThroughout || awayTooLong)) {
          error.apiUnavailable = true;
          error.unansweredSince = unansweredThroughout ? callStartedAt : this.unansweredSince(firstAwayAt!);
        }
        this.emit({ ...base, outcome: request.notFoundIsEmpty && isEmptyAnswer(error) ? 'empty' : 'failed' });
        throw error;
      }
    }
  }

  /**
   * What is left of the outage tolerance (`unansweredForMs`) for a call that met the API away, counted from its first
   * attempt that met it, or the last answer when later: its budget wait asked nothing of the API. 0 or less: given up.
   */
  private toleranceLeft(error: ApiError, firstAwayAt: number | undefined): number | undefined {
    const tolerated = this.options.unansweredForMs;
    if (tolerated === undefined || firstAwayAt === undefined || !isUnavailability(error)) return undefined;
    return tolerated - (Date.now() - this.unansweredSince(firstAwayAt));
  }

  /**
   * The first moment of a call's silence: its first attempt that met the API away, or just after the last answer when
   * later. The tolerance is counted from the same moment the error reports, so what it says was waited out was.
   */
  private unansweredSince(firstAwayAt: number): number {
    return Math.max(firstAwayAt, this.lastAnsweredAt + 1);
  }

  /**
   * A wait of a call (budget, 429, backoff). Once `stopWaiting` aborts, a wait still going a moment later ends with a
   * `StoppedWaitingError`: pacing's short waits end as they would, while a 429's minutes no longer hold the stop.
   */
  private async waiting(
    request: ApiRequest,
    signal: AbortSignal | undefined,
    wait: (signal: AbortSignal | undefined) => Promise<void>,
  ): Promise<void> {
    const stopWaiting = this.options.stopWaiting;
    if (!stopWaiting) return wait(signal);
    const cut = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const onStop = () => (timer = setTimeout(() => cut.abort(), STOP_WAIT_GRACE_MS));
    if (stopWaiting.aborted) onStop();
    else stopWaiting.addEventListener('abort', onStop, { once: true });
    try {
      await wait(combine(signal, cut.signal));
    } catch (error) {
      if (cut.signal.aborted && !signal?.aborted)
        throw new StoppedWaitingError(`${request.endpoint}: the process is stopping, and the call stopped waiting`);
      throw error;
    } finally {
      clearTimeout(timer);
      stopWaiting.removeEventListener('abort', onStop);
    }
  }

  /** One HTTP exchange under the overall deadline; the body is read whole, up to `api.maxResponseMb` (pages are small: at most 100 records, spec "Limits"). */
  private async once(
    request: ApiRequest,
    callerSignal: AbortSignal | undefined,
  ): Promise<{ status: number; body: unknown }> {
    const { path, endpoint } = request;
    const deadline = AbortSignal.timeout(this.config.requestTimeoutMs);
    const signal = callerSignal ? AbortSignal.any([deadline, callerSignal]) : deadline;
    let status: number;
    let headers: HeaderBag;
    let text: string;
    let unreadBody: string | undefined;
    const sentAt = Date.now();
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: `${this.basePath}${path}`,
        method: request.method,
        headers: requestHeaders(this.config.apiKey, request),
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        headersTimeout: this.config.headersTimeoutMs,
        bodyTimeout: this.config.bodyTimeoutMs,
        signal,
      });
      status = response.statusCode;
      headers = response.headers;
      if (!isApiAbsence(status)) this.lastAnsweredAt = Date.now();
      try {
        text = await readResponseText(response, endpoint, this.config.maxResponseMb * 2 ** 20);
      } catch (error) {
        // An error answer whose body is cut short or cannot be decoded keeps its status and headers, so a 429 still
        // slows the key and heeds its Retry-After. test/api/unread-error-body.int.test.ts.
        if (callerSignal?.aborted || status < 400) throw error;
        text = '';
        unreadBody = errorMessage(error);
      }
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (error instanceof ApiError) throw error;
      throw (
        classifyCertificateError(error, endpoint) ??
        classifyNetworkError(error, endpoint, deadline.aborted, this.config.requestTimeoutMs)
      );
    }
    let body: unknown;
    let parsed = true;
    try {
      // RFC 8259 lets a parser ignore a byte order mark; JSON.parse does not. test/api/response-body.test.ts.
      body = text === '' ? undefined : JSON.parse(text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text);
    } catch {
      parsed = false;
    }
    if (unreadBody !== undefined && status !== 429) {
      // Its body says what it means (an empty domain detail or a missing resource, which brand or key is refused):
      // asked again, as any body cut short is, heeding a Retry-After it came with.
      await this.tellBudget(status, headers, sentAt, endpoint);
      throw new TransientError(
        `${endpoint}: HTTP ${status} whose body could not be read: ${unreadBody}`,
        { status, endpoint },
        'bad_body',
        parseRetryAfter(firstHeader(headers, 'retry-after'), Date.now()),
      );
    }
    if (status < 200 || status >= 300) {
      // Which of a run of nameless waits this answer would be, if it is one: a new episode when sent after the last wait.
      const episode =
        sentAt >= this.namelessWaitEnds ? this.namelessRateLimits + 1 : Math.max(1, this.namelessRateLimits);
      const namelessWaitMs = Math.min(MAX_NAMELESS_WAIT_MS, DEFAULT_RETRY_AFTER_MS * 2 ** (episode - 1));
      const error = classifyResponse({
        status,
        headers,
        body: parsed ? body : undefined,
        endpoint,
        text,
        unreadBody,
        namelessWaitMs,
      });
      const limited = error instanceof RateLimitedError ? error : undefined;
      // A throttling answer of any status (a 503 rate_limited, a gateway's 403) that names no wait.
      if (limited && parseRetryAfter(firstHeader(headers, 'retry-after'), Date.now()) === undefined) {
        this.namelessRateLimits = episode;
        this.namelessWaitEnds = Math.max(this.namelessWaitEnds, Date.now() + limited.retryAfterMs);
      } else if (!limited && !isApiAbsence(status)) this.answeredAfterWaits(sentAt);
      await this.tellBudget(status, headers, sentAt, endpoint, limited?.retryAfterMs);
      throw error;
    }
    this.answeredAfterWaits(sentAt);
    await this.tellBudget(status, headers, sentAt, endpoint);
    // A write answered 2xx without a body (204 No Content; the spec lists no success codes) was done, so it is not
    // sent again. test/api/write-no-content.test.ts.
    if (text === '' && request.method !== 'GET') return { status, body: undefined };
    if (!parsed || body === undefined) {
      // JSON cut short may come whole next time; a page of another format (a proxy's login page, plain text), or an
      // empty body read whole, comes back the same.
      const otherFormat = /^\s*[^\s{["]/.test(text.replace(/^\uFEFF/, ''));
      const empty = text.trim() === '';
      throw new TransientError(
        `${endpoint}: HTTP ${status} with a body that is not JSON${describeBody(firstHeader(headers, 'content-type'), text) || ' (empty)'}` +
          (otherFormat ? "; check api.url: a proxy or another service may be answering in the API's place" : ''),
        { status, endpoint },
        otherFormat ? 'other_format' : empty ? 'empty_body' : 'bad_body',
      );
    }
    return { status, body };
  }

  /**
   * An answer that is not a rate limit ends a run of nameless waits only when it was sent after the last one ended,
   * so a slow page sent earlier does not reset the episode.
   */
  private answeredAfterWaits(sentAt: number): void {
    if (sentAt >= this.namelessWaitEnds) this.namelessRateLimits = 0;
  }

  /**
   * What the answer means for the key's budget: a rate limit (any status) blocks the key for its Retry-After and cuts
   * the rate, others count as accepted, headers may set the ceiling. A Redis failure costs an observation only.
   */
  private async tellBudget(
    status: number,
    headers: HeaderBag,
    sentAt: number,
    endpoint: string,
    rateLimitedMs?: number,
  ): Promise<void> {
    const rateLimited = rateLimitedMs !== undefined;
    const signals = readRateLimitHeaders(headers);
    for (const problem of signals.problems) {
      const name = problem.slice(0, problem.indexOf(':'));
      if (this.unreadableHeaders.has(name)) continue;
      this.unreadableHeaders.add(name);
      this.options.logger?.debug(
        { endpoint, header: problem },
        'unreadable rate-limit header ignored (logged once per header)',
      );
    }
    const stated =
      signals.policyPerSecond !== undefined || signals.limit !== undefined || signals.remaining !== undefined;
    await this.toBudget(endpoint, 'the rate budget could not record an answer', async () => {
      if (rateLimited) await this.budget.blockFor(rateLimitedMs);
      // The budget cuts the rate on a 429: a throttling answer in another status is one to it.
      await this.budget.observe({ status: rateLimited ? 429 : status, sentAt, signals: stated ? signals : undefined });
    });
  }

  /** Tells the budget something; a failure there (Redis) is logged, never the call's. */
  private async toBudget(endpoint: string, failure: string, tell: () => Promise<void>): Promise<void> {
    try {
      await tell();
    } catch (error) {
      this.options.logger?.warn({ endpoint, err: errorMessage(error) }, failure);
    }
  }

  private emit(event: ApiRequestEvent): void {
    const told =
      event.status !== undefined && !isApiAbsence(event.status) ? { ...event, answeredAt: this.lastAnsweredAt } : event;
    this.heard.observe(told);
    try {
      this.options.onRequest?.(told);
    } catch (error) {
      this.options.logger?.error({ error: String(error) }, 'onRequest hook failed');
    }
  }

  async close(): Promise<void> {
    await this.budget.close?.();
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

function requestHeaders(apiKey: string, request: ApiRequest): Record<string, string> {
  const headers: Record<string, string> = {
    'x-api-key': apiKey,
    accept: 'application/json',
    'accept-encoding': ACCEPTED_ENCODINGS,
  };
  // "Write requests send Content-Type: application/json" (spec, "Endpoints"), a body or none (restore).
  if (request.method !== 'GET') headers['content-type'] = 'application/json';
  if (request.idempotency) headers[request.idempotency.header] = request.idempotency.value;
  return headers;
}

/** A signal of this call alone, so waits add their listeners to it rather than to the client-wide one. */
function combine(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  const signals = [a, b].filter((signal): signal is AbortSignal => signal !== undefined);
  return signals.length ? AbortSignal.any(signals) : undefined;
}

/**
 * Answers parsed whole that are not the spec's envelope come back the same as a rule (the API's format differs, not
 * a glitch): asked once more, in case a proxy answered in between, not `api.maxAttempts` times.
 */
export const BAD_ENVELOPE_ATTEMPTS = 2;

function attemptsFor(error: ApiError, maxAttempts: number): number {
  return isBadEnvelope(error) ? Math.min(BAD_ENVELOPE_ATTEMPTS, maxAttempts) : maxAttempts;
}
