import { isNotConnectionError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../../log.js';
import { machineFault, type Notifier } from '../../notify/index.js';
import { describeRedisAddress } from '../../redis-address.js';

/** How often the watch looks at how long Redis has been away. */
const CHECK_EVERY_MS = 1_000;

/**
 * A worker reconnects to Redis for ever, so nothing fails and nobody is told: this sends one `machine_fault` per outage
 * once Redis has not answered for `limitMs` (test/e2e/notify-worker-redis.int.test.ts). Returns the stop function.
 */
export function watchRedisForFaults(connection: Redis, url: string, limitMs: number, notifier: Notifier): () => void {
  let downSince: number | undefined;
  let told = false;
  const down = () => (downSince ??= performance.now());
  const up = () => {
    downSince = undefined;
    told = false;
  };
  connection.on('close', down);
  connection.on('ready', up);
  const timer = setInterval(() => {
    if (downSince === undefined || told || performance.now() - downSince < limitMs) return;
    told = true;
    const seconds = Math.round((performance.now() - downSince) / 1000);
    void notifier.notify(
      machineFault(
        'redis',
        'redis_unavailable',
        `Redis at ${describeRedisAddress(url)} has not answered for ${seconds} s; the worker keeps trying to reconnect, and no job runs meanwhile`,
      ),
    );
  }, CHECK_EVERY_MS).unref();
  return () => {
    clearInterval(timer);
    connection.off('close', down);
    connection.off('ready', up);
  };
}

/** What `logRedisOutages` returns: whether Redis is away, and a way to fold another connection's errors in. */
export interface RedisOutageLog {
  /** Whether a watched connection failed and has not answered since. */
  readonly down: boolean;
  /** Adds a connection of the same Redis: its errors and answers count for the same outage. */
  watch(connection: Redis): void;
}

/**
 * Logs once that Redis stopped answering, saying `meanwhile` what waits, and once that every failed connection answers
 * again (test/reliability/redis.int.test.ts "says once"); an error with no listener is printed raw.
 */
export function logRedisOutages(connection: Redis, log: Logger, meanwhile: string): RedisOutageLog {
  const failing = new Set<Redis>();
  const outage: RedisOutageLog = {
    get down() {
      return failing.size > 0;
    },
    watch(other) {
      other.on('error', (error: Error) => {
        if (failing.size === 0)
          log.warn({ err: error.message }, `redis connection error; reconnecting, and ${meanwhile}`);
        failing.add(other);
      });
      other.on('ready', () => {
        if (failing.delete(other) && failing.size === 0) log.info('redis answers again');
      });
      // A connection closed on purpose (a worker stopping) no longer holds the outage open.
      other.on('end', () => failing.delete(other));
    },
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
