import type { Redis } from 'ioredis';
import { describeRedisAddress } from '../../redis-address.js';

/** How long a `sync` or `backfill` waits for a Redis that stopped answering before it gives up; default one minute. */
export const DEFAULT_REDIS_OUTAGE_MS = 60_000;

/** Redis stopped answering a command that waits on its run, and did not answer again within the limit. */
export class RedisGoneError extends Error {
  readonly code = 'redis_unavailable';
  constructor(url: string, runId: string, waitedMs: number, reason: string | undefined) {
    super(
      `Redis at ${describeRedisAddress(url)} has not answered for ${Math.round(waitedMs / 1000)} s${reason ? ` (${reason})` : ''}; ` +
        `stopped waiting on run ${runId}. Every slice already committed stays in the warehouse. Once Redis answers again, ` +
        'run the same command: it carries on with the run if Redis kept it, else it starts the window afresh ' +
        '(BVSYNC_REDIS_OUTAGE_MS sets how long to wait)',
    );
    this.name = 'RedisGoneError';
  }
}

/**
 * Watches the connection a command waits on its run with. ioredis queues commands while it reconnects, for ever, so a
 * one-off command stops past the limit and says so; a worker has no one to tell and waits.
 */
export class RedisOutageWatch {
  private downSince: number | undefined;
  private reason: string | undefined;
  readonly stop: () => void;

  constructor(
    connection: Redis,
    private readonly url: string,
    private readonly limitMs: number,
  ) {
    const down = () => (this.downSince ??= performance.now());
    const up = () => {
      this.downSince = undefined;
      this.reason = undefined;
    };
    const failed = (error: Error) => {
      down();
      this.reason = error.message;
    };
    connection.on('close', down);
    connection.on('ready', up);
    connection.on('error', failed);
    this.stop = () => {
      connection.off('close', down);
      connection.off('ready', up);
      connection.off('error', failed);
    };
  }

  /**
   * Waits for a Redis command, or throws once Redis has been unreachable, or the command unanswered, for the limit: a
   * frozen or cut-off Redis closes nothing, and queued commands wait for the reconnect.
   */
  async within<T>(runId: string, command: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const sent = performance.now();
    const gone = new Promise<never>((_, reject) => {
      const poll = () => {
        try {
          const down = this.downSince === undefined ? undefined : performance.now() - this.downSince;
          if (down !== undefined && down >= this.limitMs) throw new RedisGoneError(this.url, runId, down, this.reason);
          const waited = performance.now() - sent;
          if (waited >= this.limitMs)
            throw new RedisGoneError(this.url, runId, waited, this.reason ?? 'a command had no answer');
          timer = setTimeout(poll, OUTAGE_POLL_MS);
        } catch (error) {
          // After the event loop stood still (a long synchronous copy, the process paused), timers run before the
          // socket is read: an answer that arrived meanwhile is read before this rejection, and wins the race.
          setImmediate(() => reject(error as Error));
        }
      };
      timer = setTimeout(poll, OUTAGE_POLL_MS);
    });
    try {
      return await Promise.race([command, gone]);
    } finally {
      clearTimeout(timer);
      // The command may still settle after the limit (Redis came back just then): nobody waits on it.
      command.catch(() => undefined);
    }
  }
}

const OUTAGE_POLL_MS = 250;
