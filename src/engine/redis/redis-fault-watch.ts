import { isNotConnectionError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../log.js';
import { machineFault, type Notifier } from '../../notify/index.js';
import { describeRedisAddress } from '../../redis-address.js';
import { within } from '../../within.js';

/** How often the watches look at Redis: the fault watch at how long it has been away, the outage log with a PING. */
const CHECK_EVERY_MS = 1_000;

/** How long a PING may go unanswered before Redis counts as away: a frozen or overloaded server closes nothing. */
const SILENT_AFTER_MS = 5_000;

/**
 * A worker reconnects to Redis for ever, so nothing fails and nobody is told: this sends one `machine_fault` per outage
 * once Redis has not answered for `limitMs` (test/e2e/notify-worker-redis.int.test.ts). Returns the stop function.
 */
export function watchRedisForFaults(
  outage: RedisOutageLog,
  url: string,
  limitMs: number,
  notifier: Notifier,
): () => void {
  let told = false;
  const timer = setInterval(() => {
    const since = outage.downSince;
    if (since === undefined) told = false;
    if (since === undefined || told || performance.now() - since < limitMs) return;
    told = true;
    const seconds = Math.round((performance.now() - since) / 1000);
    void notifier.notify(
      machineFault(
        'redis',
        'redis_unavailable',
        `Redis at ${describeRedisAddress(url)} has not answered for ${seconds} s; the worker keeps trying to reconnect, and no job runs meanwhile`,
      ),
    );
  }, CHECK_EVERY_MS).unref();
  return () => clearInterval(timer);
}

/** Redis refuses writes past its maxmemory: no job can record its end until memory is freed, so work stops. */
export class RedisFullError extends Error {
  readonly code = 'redis_full';
  constructor(url: string, cause: Error) {
    super(
      `Redis at ${describeRedisAddress(url)} is full: it refuses writes past its maxmemory (${cause.message.split('.')[0]}). ` +
        "This process stopped; the run's jobs stay queued and the slices committed are kept. Free memory on that Redis " +
        'or raise its maxmemory, then run the same command again (docs/operations.md, "Supported Redis topologies").',
      { cause },
    );
    this.name = 'RedisFullError';
  }
}

/** Redis's refusal of a write at its maxmemory under `noeviction`, as a fault; undefined for any other error. */
export function redisFullFault(error: Error, url: string): RedisFullError | undefined {
  return /^OOM command not allowed\b/.test(error.message) ? new RedisFullError(url, error) : undefined;
}

/** What `logRedisOutages` returns: whether Redis is away and since when, and a way to fold another connection in. */
export interface RedisOutageLog {
  /** Whether a watched connection failed, or a PING went unanswered, and Redis has not answered since. */
  readonly down: boolean;
  /** When the outage began (`performance.now()`), or undefined while Redis answers. */
  readonly downSince: number | undefined;
  /** Adds a connection of the same Redis: its errors and answers count for the same outage. */
  watch(connection: Redis): void;
  /** Whether Redis answers the watch's PING within `ms`: a short stall is told from an outage. */
  answersWithin(ms: number): Promise<boolean>;
  /** Ends the PINGs. */
  stop(): void;
}

/**
 * Logs once that Redis stopped answering, saying `meanwhile` what waits, and once that it answers again (redis.int
 * "says once"); a PING each second (EXISTS `heartbeatKey`) finds a frozen Redis (redis-frozen.int, "a worker").
 */
export function logRedisOutages(
  connection: Redis,
  heartbeatKey: string,
  log: Logger,
  meanwhile: string,
): RedisOutageLog {
  const failing = new Set<Redis>();
  let since: number | undefined;
  let pingSentAt: number | undefined;
  let silent = false;
  const began = (at: number, say: () => void) => {
    if (since !== undefined) return;
    since = at;
    say();
  };
  const ended = () => {
    if (since === undefined || failing.size > 0 || silent) return;
    since = undefined;
    log.info('redis answers again');
  };
  const ping = () => connection.exists(heartbeatKey);
  const pings = setInterval(() => {
    // Sent in any state: a connection frozen in its ready check is never `ready`, and one reconnecting queues it.
    if (pingSentAt === undefined) {
      pingSentAt = performance.now();
      ping().then(
        () => {
          pingSentAt = undefined;
          silent = false;
          ended();
        },
        () => (pingSentAt = undefined),
      );
    } else if (!silent && performance.now() - pingSentAt >= SILENT_AFTER_MS) {
      silent = true;
      began(pingSentAt, () =>
        log.warn(`redis did not answer a PING within ${SILENT_AFTER_MS / 1000} s: frozen, or overloaded; ${meanwhile}`),
      );
    }
  }, CHECK_EVERY_MS).unref();
  const outage: RedisOutageLog = {
    get down() {
      return since !== undefined;
    },
    get downSince() {
      return since;
    },
    watch(other) {
      other.on('error', (error: Error) => {
        failing.add(other);
        began(performance.now(), () =>
          log.warn({ err: error.message }, `redis connection error; reconnecting, and ${meanwhile}`),
        );
      });
      other.on('ready', () => {
        failing.delete(other);
        ended();
      });
      // A connection closed on purpose (a worker stopping) no longer holds the outage open.
      other.on('end', () => failing.delete(other));
    },
    answersWithin: async (ms) => {
      const answer = await within(ping(), ms);
      return !answer.timedOut && !answer.error;
    },
    stop: () => clearInterval(pings),
  };
  outage.watch(connection);
  return outage;
}

/**
 * Whether an error is a Redis connection failing: refused, closed, reset, timed out or unreachable, as BullMQ passes them on
 * (test/engine/redis-connection-error.test.ts).
 */
export function isRedisConnectionError(error: Error & { code?: string }): boolean {
  return !isNotConnectionError(error) || SOCKET_FAILURES.has(error.code ?? '');
}

/** Socket and name-lookup codes that bullmq's own test misses. */
const SOCKET_FAILURES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
