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
  /** Whether a watched connection failed and none has answered since. */
  readonly down: boolean;
  /** Adds a connection of the same Redis: its errors and answers count for the same outage. */
  watch(connection: Redis): void;
}

/**
 * Logs once that Redis stopped answering, saying `meanwhile` what waits, and once that it answers again, however many
 * connections retry meanwhile (test/reliability/redis.int.test.ts); an error with no listener is printed raw.
 */
export function logRedisOutages(connection: Redis, log: Logger, meanwhile: string): RedisOutageLog {
  let down = false;
  const outage: RedisOutageLog = {
    get down() {
      return down;
    },
    watch(other) {
      other.on('error', (error: Error) => {
        if (down) return;
        down = true;
        log.warn({ err: error.message }, `redis connection error; reconnecting, and ${meanwhile}`);
      });
      other.on('ready', () => {
        if (!down) return;
        down = false;
        log.info('redis answers again');
      });
    },
  };
  outage.watch(connection);
  return outage;
}

/**
 * Whether an error is a Redis connection failing: refused, closed, reset or timed out, as BullMQ passes them on
 * (test/engine/redis-connection-error.test.ts).
 */
export function isRedisConnectionError(error: Error & { code?: string }): boolean {
  return !isNotConnectionError(error) || ['ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(error.code ?? '');
}
