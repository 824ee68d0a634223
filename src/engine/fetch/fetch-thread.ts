/**
 * One fetch thread (fetch-thread-pool.ts starts it) reads slices as a fetch job does inline, off the writer's core.
 * It has its own API client and Redis connection; the key's rate budget is in Redis, so every thread paces against it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { KeyAnswers, createApiClient } from '../../api/index.js';
import { createLogger, registerSecret, routeLogLines } from '../../log.js';
import { connectRedis } from '../redis/redis.js';
import { Availability } from './availability.js';
import { outageToleranceMs } from './outage-memo.js';
import { RequestTallies } from '../run/request-tally.js';
import { inlineSliceReader } from './slice-reader.js';
import { fetchBudget } from './quota-parking.js';
import { withQuotaClass } from '../../api/rate/request-quota.js';
import {
  serializeError,
  type FetchThreadSetup,
  type FromFetchThread,
  type ToFetchThread,
} from './fetch-thread-messages.js';

const port = parentPort!;
const setup = (workerData as { setup: FetchThreadSetup }).setup;
const post = (message: FromFetchThread) => port.postMessage(message);

const { config } = setup;
registerSecret(config.api.apiKey);
// Lines go to the main thread, which prints them through the process logger (above the live progress line, if any).
// createLogger's own masking of secrets runs here first, so the key never crosses the thread boundary in a line.
routeLogLines((line) => post({ type: 'log', line }));
const log = createLogger({ level: setup.logLevel, pretty: false });
const abort = new AbortController();
const stopWaiting = new AbortController();
const redis = connectRedis(setup.redisUrl);
// The worker host says once per outage that Redis is away; a listener here keeps ioredis from printing each error raw.
redis.on('error', (error: Error) => log.debug({ err: error.message }, 'redis connection error in a fetch thread'));
const tallies = new RequestTallies();
// What this thread's calls heard on the key: a run's give-up spares its reads when it was served since (slice-reader.ts).
const heard = new KeyAnswers();
// The request budget's windows by the real clock here: a function does not cross the thread boundary.
const { budget } = fetchBudget(config, redis, log);
const client = createApiClient(
  { ...config.api, connections: setup.connections },
  {
    budget,
    logger: log,
    signal: abort.signal,
    stopWaiting: stopWaiting.signal,
    retryRateLimited: true,
    unansweredForMs: outageToleranceMs(config.sync),
    onRequest: (event) => {
      heard.observe(event);
      tallies.onRequest(event);
      post({ type: 'request', event });
    },
  },
);
const reader = inlineSliceReader({
  redis,
  prefix: config.redisPrefix,
  client,
  sync: config.sync,
  tallies,
  chunkRows: setup.chunkRows,
  signal: abort.signal,
  availability: new Availability(redis, config.redisPrefix, config.api.apiKey ?? '', heard, config.sync),
});

port.on('message', (message: ToFetchThread) => {
  if (message.type === 'abort') return abort.abort();
  if (message.type === 'stop-waiting') return stopWaiting.abort();
  const { id, data, token, tally, quotaClass } = message;
  const read = () => reader.read(data, token, tally);
  (quotaClass ? withQuotaClass(quotaClass, read) : read()).then(
    ({ result, chunks }) => post({ type: 'read', id, result, chunks, tally }),
    (error: unknown) => post({ type: 'failed', id, error: serializeError(error), tally }),
  );
});
