import { once, setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { handleAdmin } from './admin.js';
import { applyDrift, applyInfoDrift } from './faults/drift.js';
import { SimulatorApiError, simulatorNotFound, simulatorValidationError } from './sim-errors.js';
import { faultFor } from './faults/faults.js';
import { isLaterPage, laterPage } from './faults/later-pages.js';
import { applyOddities } from './faults/oddities.js';
import type { FaultKind } from './knobs.js';
import { QueryReader } from './query.js';
import { rateLimitHeaders } from './faults/rate-limit.js';
import { queryObject } from './request-log.js';
import { sendBody } from './respond.js';
import { ROUTES } from './routes/index.js';
import type { SimulatorState } from './state.js';
import { errorMessage } from '../format.js';

const API_PREFIX = /^\/customer\/v1\/brands\/([^/]+)(\/.*)?$/;
const MAX_BODY_BYTES = 10 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new SimulatorApiError(413, 'payload_too_large', 'body over 10 MB');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface Outcome {
  status: number;
  body: string;
  headers: Record<string, string>;
  /** Items a write wrote, for the request log; absent for reads. */
  written?: number;
}

function errorOutcome(error: SimulatorApiError): Outcome {
  return { status: error.status, body: error.envelopeJson(), headers: error.headers };
}

/** Runs one API request through auth, brand access, idempotency and its route. */
async function answer(sim: SimulatorState, req: IncomingMessage, url: URL, rawBody: string): Promise<Outcome> {
  const key = req.headers['x-api-key'];
  if (typeof key !== 'string' || key !== sim.apiKey) {
    throw new SimulatorApiError(
      401,
      'unauthorized',
      key === undefined ? 'the X-API-Key header is missing' : 'the API key is not valid',
    );
  }
  const match = API_PREFIX.exec(url.pathname);
  if (!match) throw simulatorNotFound(`no endpoint ${req.method} ${url.pathname}`);
  const brandText = match[1]!;
  if (!/^\d+$/.test(brandText)) throw simulatorValidationError([{ field: 'brand_id', message: 'must be an integer' }]);
  const brandId = Number(brandText);
  if (brandId < 1 || brandId > sim.brandCount) {
    throw new SimulatorApiError(403, 'brand_access_denied', `the API key has no access to brand ${brandId}`);
  }
  const rest = match[2] ?? '';
  const route = ROUTES.find((candidate) => candidate.method === req.method && candidate.pattern.test(rest));
  if (!route) throw simulatorNotFound(`no endpoint ${req.method} ${url.pathname}`);
  let captures: string[];
  try {
    captures = route.pattern.exec(rest)!.slice(1).map(decodeURIComponent);
  } catch {
    throw simulatorValidationError([{ field: 'path', message: 'is not valid percent-encoding' }]);
  }

  const isWrite = req.method === 'POST' || req.method === 'PATCH';
  const header = req.headers[sim.idempotencyHeader];
  const idempotencyValue = isWrite && typeof header === 'string' && header.length > 0 ? header : undefined;
  const nowMs = sim.clock.nowMs();
  if (idempotencyValue !== undefined) {
    const stored = sim.idempotency.get(sim.apiKey, idempotencyValue, nowMs);
    if (stored)
      return { status: stored.status, body: stored.body, headers: { 'idempotent-replayed': 'true' }, written: 0 };
  }
  let body: unknown;
  if (isWrite && rawBody.length > 0) {
    try {
      body = JSON.parse(rawBody);
    } catch {
      throw simulatorValidationError([{ field: 'body', message: 'is not valid JSON' }]);
    }
  }
  // Writes that are not dry runs past the knob's count fail, as an API going away in the middle of an apply.
  if (
    isWrite &&
    sim.knobs.realWritesAnswered >= 0 &&
    (body as { dry_run?: unknown } | undefined)?.dry_run !== true &&
    sim.realWrites++ >= sim.knobs.realWritesAnswered
  ) {
    throw new SimulatorApiError(503, 'unavailable', 'injected: the API stopped answering writes');
  }
  const query = new QueryReader(url.searchParams, sim.paramsOf(rest), {
    ...sim.knobs,
    arrayFormat: sim.arrayFormat,
    rangeEndEcho: sim.rangeEndEcho,
  });
  const world = sim.world(brandId);
  let outcome: Outcome;
  try {
    const result = route.handle({ sim, brandId, world, query, body, params: captures });
    const drifting = sim.knobs.extraFieldShare > 0 || sim.knobs.unknownEnumShare > 0 || sim.knobs.invalidShare > 0;
    const odd = sim.knobs.oddities.length > 0;
    let text: string;
    if (result.json && !drifting && !odd) text = result.json();
    else {
      let payload = result.body as { data?: unknown; info?: Record<string, unknown> };
      if (drifting && req.method === 'GET' && Array.isArray(payload?.data)) {
        const settings = { seed: sim.seed, ...sim.knobs };
        payload = {
          ...payload,
          data: applyDrift(payload.data, route.name, settings),
          info: applyInfoDrift(payload.info, route.name, settings),
        };
      }
      if (odd && req.method === 'GET' && Array.isArray(payload?.data)) {
        payload = { ...payload, ...applyOddities({ data: payload.data, info: payload.info }, sim.knobs.oddities) };
      }
      text = JSON.stringify(payload);
    }
    outcome = { status: 200, body: text, headers: {} };
    const later = sim.knobs.laterPages;
    if (later !== 'json' && req.method === 'GET' && isLaterPage(result.body, query.settings.firstPage))
      outcome = { ...outcome, ...laterPage(later, text) };
    if (isWrite) {
      // A bulk write says what it wrote (0 on a dry run); any other write that answers wrote its one item.
      const stated = (result.body as { info?: { written?: unknown } } | undefined)?.info?.written;
      outcome.written = typeof stated === 'number' ? stated : 1;
    }
  } catch (error) {
    if (!(error instanceof SimulatorApiError)) throw error;
    outcome = { ...errorOutcome(error), ...(isWrite ? { written: 0 } : {}) };
  }
  if (idempotencyValue !== undefined && outcome.status < 500) {
    sim.idempotency.put(sim.apiKey, idempotencyValue, outcome.status, outcome.body, nowMs);
  }
  return outcome;
}

export async function listen(
  sim: SimulatorState,
  port: number,
  host: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const stalls = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  // Aborted by close(), so a request sleeping in its latency (up to 10 minutes) does not keep the process alive.
  const stopping = new AbortController();
  // Every request in flight waits on it (latency, a held answer): many listeners are the design, not a leak.
  setMaxListeners(0, stopping.signal);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://simulator');
    let rawBody = '';
    try {
      rawBody = await readBody(req);
    } catch {
      if (!res.headersSent) res.destroy();
      return;
    }
    if (url.pathname.startsWith('/__admin/')) return handleAdmin(sim, req, res, url.pathname, rawBody);
    sim.inFlight++;
    await answerApiRequest(req, res, url, rawBody, started).finally(() => sim.inFlight--);
  };

  const answerApiRequest = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    rawBody: string,
    started: number,
  ) => {
    const sequence = ++sim.requestSequence;
    const knobs = sim.knobs;
    const idempotencyKey = req.headers[sim.idempotencyHeader];
    const log = (status: number, fault?: FaultKind | 'hang', written?: number) => {
      const entry = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: queryObject(url.searchParams),
        status,
        time: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        ...(fault ? { fault } : {}),
        ...(written === undefined ? {} : { written }),
        ...(typeof idempotencyKey === 'string' && (req.method === 'POST' || req.method === 'PATCH')
          ? { idempotencyKey }
          : {}),
      };
      sim.requestLog.add(entry);
      sim.options.onRequest?.(entry);
    };
    if (knobs.latencyMs > 0) {
      try {
        await sleep(knobs.latencyMs, undefined, { signal: stopping.signal });
      } catch (error) {
        // Stopped: close() destroys this request's socket with the others, so there is no one left to answer.
        if (stopping.signal.aborted) return;
        throw error;
      }
    }
    await sim.options.beforeAnswer?.({
      method: req.method ?? 'GET',
      path: url.pathname,
      unavailable: knobs.unavailable,
    });

    if (knobs.unavailable === 'reset') {
      req.socket.destroy();
      return log(0, 'reset');
    }
    if (knobs.unavailable === 'hang') {
      // Held until the client closes it (its headers timeout) or the simulator stops (once() then rejects), whatever the
      // knob says meanwhile: a request a gateway swallowed is not answered later.
      if (!req.socket.destroyed) await once(req.socket, 'close', { signal: stopping.signal }).catch(() => undefined);
      return log(0, 'hang');
    }
    // Answers an error before the request reaches its route.
    const refuse = (status: number, code: string, message: string, headers = {}, fault?: FaultKind) => {
      sendBody(res, status, new SimulatorApiError(status, code, message).envelopeJson(), headers);
      log(status, fault);
    };
    if (knobs.unavailable === '503') {
      return refuse(503, 'service_unavailable', 'the service is restarting', { 'retry-after': '1' });
    }
    const keyHeader = req.headers['x-api-key'];
    const rateKey = typeof keyHeader === 'string' ? keyHeader : '';
    const limitedAt = Date.now();
    const allowed = sim.rateLimiter.take(rateKey, knobs.rateLimit, limitedAt, knobs.rateLimitAlgorithm);
    const limitStatus = sim.rateLimiter.status(rateKey, knobs.rateLimit, limitedAt, knobs.rateLimitAlgorithm);
    const limitHeaders = rateLimitHeaders(knobs.rateLimitHeaders, limitStatus, limitedAt, knobs.rateLimitReset);
    const tooMany = (code: string, message: string, retryAfter: string) =>
      refuse(429, code, message, { 'retry-after': retryAfter, ...limitHeaders });
    if (!allowed) {
      const seconds = knobs.retryAfterSeconds;
      const retryAfter =
        knobs.retryAfterFormat === 'http-date' ? new Date(Date.now() + seconds * 1000).toUTCString() : String(seconds);
      return tooMany('rate_limited', 'too many requests for this API key', retryAfter);
    }
    const quotaBackInS = sim.takeDailyQuota(rateKey);
    if (quotaBackInS !== undefined)
      return tooMany('daily_quota_exceeded', 'the daily request quota of this API key is spent', String(quotaBackInS));
    if (knobs.quotaSpent)
      return tooMany('monthly_quota_exceeded', 'the monthly request quota of this API key is spent', '86400');
    if (knobs.refusedPaths.some((path) => url.pathname.endsWith(`/${path}`))) {
      return refuse(403, 'forbidden', 'this endpoint is not part of the plan of the account', limitHeaders);
    }
    if (knobs.missingPaths.some((path) => url.pathname.endsWith(`/${path}`))) {
      return refuse(404, 'not_found', `no endpoint GET ${url.pathname}`, limitHeaders);
    }
    const fault = faultFor(sim.seed, sequence, knobs.faultRate, knobs.faultKinds);
    if (fault === 'reset') {
      req.socket.destroy();
      return log(0, fault);
    }
    if (fault === '5xx') {
      const status = [500, 502, 503][sequence % 3]!;
      return refuse(status, status === 503 ? 'unavailable' : 'internal_error', 'injected server failure', {}, fault);
    }
    let outcome: Outcome;
    try {
      outcome = await answer(sim, req, url, rawBody);
    } catch (error) {
      if (error instanceof SimulatorApiError) outcome = errorOutcome(error);
      else {
        process.stderr.write(`simulator: ${error instanceof Error ? error.stack : String(error)}\n`);
        outcome = errorOutcome(new SimulatorApiError(500, 'internal_error', errorMessage(error)));
      }
    }
    const breakage = fault && { fault, stallMs: knobs.stallMs, stalls };
    sendBody(res, outcome.status, outcome.body, { ...outcome.headers, ...limitHeaders }, breakage);
    log(outcome.status, fault, outcome.written);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`simulator: ${error instanceof Error ? error.stack : String(error)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostForUrl}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        stopping.abort();
        for (const timer of stalls) clearTimeout(timer);
        stalls.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
