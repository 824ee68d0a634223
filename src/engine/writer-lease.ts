import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

// Renew only while we still own it; release only what we own. Compare-and-act in one script, so a lease that
// expired and passed to another process is never extended or deleted by the old holder.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface WriterLeaseOptions {
  /** The Redis key of the lease: `redisKeys(prefix).writerLease` (src/redis-keys.ts). */
  key: string;
  /** How long the lease lives without renewal (ms); default 15 s. A dead holder is replaced after this. */
  ttlMs?: number;
  /** How often the holder renews and a waiter tries to take it (ms); default ttl / 3. */
  intervalMs?: number;
  /** The longest wait before trying again after `onAcquired` failed (ms); default 60 s. */
  maxBackoffMs?: number;
  /** Called when this process gains the lease. */
  onAcquired: () => Promise<void> | void;
  /** Called when this process loses it (renewal failed or Redis said another holds it). */
  onLost: () => Promise<void> | void;
  /** The file the holder writes, kept in the lease for others to read (`leaseHolderWrites`); default none. */
  writes?: string;
  /**
   * Whether a failure of `onAcquired` is one to try again every interval rather than after a growing wait: a file
   * another bvsync still holds while it closes, which a command waits for only so long; default none.
   */
  retryPromptly?: (error: unknown) => boolean;
}

/**
 * The file the process holding the lease writes, or undefined when none holds it (or a bvsync before this one does,
 * whose lease names none). The lease's value is the holder's id, then a space and the file.
 */
export async function leaseHolderWrites(redis: Redis, key: string): Promise<string | undefined> {
  const value = await redis.get(key);
  const space = value?.indexOf(' ') ?? -1;
  return value && space > 0 ? value.slice(space + 1) : undefined;
}

/**
 * The DuckDB writer lease: one process at a time loads. Every process that may load (`worker`, `sync`,
 * `backfill`) runs one; whoever holds it runs the load worker, the others only fetch. If the holder dies, the key
 * expires and a waiter takes over. The DuckDB file lock is the fence behind it: a new holder cannot open the file
 * until the old process has let go of it. Why one writer: docs/architecture.md, "The flow".
 *
 * A process that took the lease but could not become the writer (`onAcquired` threw: the file is held by another
 * program, or cannot be opened at all) gives it back and waits twice as long each time before taking it again, up to
 * `maxBackoffMs`, so a file that stays unusable costs a try a minute rather than one every few seconds, and the lease
 * is left free for a process that can open it.
 */
export class WriterLease {
  readonly owner = randomUUID();
  /** What the lease's key holds while this process has it: its id, and the file it writes. */
  private readonly value: string;
  private readonly ttlMs: number;
  private readonly intervalMs: number;
  private readonly maxBackoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  private held = false;
  private ticking: Promise<void> | undefined;
  /** `onAcquired` while it runs: opening DuckDB, no Redis call, so stop() waits it out to close what it opens. */
  private acquiring: Promise<unknown> | undefined;
  /** `onLost` while a tick runs it (closing DuckDB): stop() waits for it, so a process does not end mid-close. */
  private losing: Promise<unknown> | undefined;
  private stopped = false;
  /** Set by retire(): renew what is held, take nothing new. */
  private retired = false;
  /**
   * Failed `onAcquired` calls in a row, and when the next try may be made, on the monotonic clock: a wall clock set
   * back an hour held the lease untried for that hour.
   */
  private failures = 0;
  private notBefore = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: WriterLeaseOptions,
  ) {
    this.value = options.writes ? `${this.owner} ${options.writes}` : this.owner;
    this.ttlMs = options.ttlMs ?? 15_000;
    this.intervalMs = options.intervalMs ?? Math.max(200, Math.floor(this.ttlMs / 3));
    this.maxBackoffMs = Math.max(this.intervalMs, options.maxBackoffMs ?? 60_000);
  }

  get isHeld(): boolean {
    return this.held;
  }

  /**
   * Takes the lease no more, while still renewing it if held: a process on its way out (draining its fetch jobs before
   * stop()) must not become the writer just then.
   */
  retire(): void {
    this.retired = true;
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.retired = false;
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
  }

  /**
   * Stops trying; releases the lease if held (after `onLost`, so the holder closes DuckDB first). Waits on Redis at
   * most `redisWaitMs` per call (0 when the caller knows Redis is gone); true when every call it waited on settled.
   */
  async stop(redisWaitMs = STOP_WAIT_MS): Promise<boolean> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    // A tick or a release waiting on a Redis that went away may never settle (commands wait for the reconnect): past
    // the limit the holder closes DuckDB and lets go without it, and the lease expires on its own after its ttl.
    // A tick still opening or closing the writer got its answer from Redis; that work is waited out below.
    let answered = (await settledWithin(this.ticking, redisWaitMs)) || this.acquiring !== undefined || this.losing !== undefined;
    // Becoming the writer is not waiting on Redis, and what it opens must be closed before the lease goes: cut short,
    // it opened DuckDB and started a load worker after stop() had returned and the lease was free.
    await this.acquiring?.catch(() => undefined);
    await this.losing?.catch(() => undefined);
    if (this.held) {
      this.held = false;
      await this.options.onLost();
      answered = (await settledWithin(this.redis.eval(RELEASE, 1, this.options.key, this.value), redisWaitMs)) && answered;
    }
    return answered;
  }

  private tick(): Promise<void> {
    if (this.ticking || this.stopped) return this.ticking ?? Promise.resolve();
    this.ticking = this.tryOnce().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async tryOnce(): Promise<void> {
    try {
      if (this.held) {
        const renewed = await this.redis.eval(RENEW, 1, this.options.key, this.value, String(this.ttlMs)).catch(() => 0);
        // stop() may have let go meanwhile, without waiting for this answer.
        if (renewed !== 1 && this.held) {
          this.held = false;
          this.losing = Promise.resolve(this.options.onLost());
          try {
            await this.losing;
          } finally {
            this.losing = undefined;
          }
        }
      } else if (!this.retired && performance.now() >= this.notBefore) {
        const taken = await this.redis.set(this.options.key, this.value, 'PX', this.ttlMs, 'NX').catch(() => null);
        if (taken === 'OK' && this.stopped) {
          // Taken after stop() stopped waiting for this answer: the process is on its way out.
          await this.redis.eval(RELEASE, 1, this.options.key, this.value).catch(() => {});
        } else if (taken === 'OK') {
          this.held = true;
          try {
            this.acquiring = Promise.resolve(this.options.onAcquired());
            await this.acquiring;
            this.failures = 0;
          } catch (error) {
            // Could not become the writer (the old holder still has the file open, or the file cannot be opened at
            // all): give the lease back and wait longer each time before trying again.
            this.held = false;
            this.failures += 1;
            const prompt = this.options.retryPromptly?.(error) === true;
            this.notBefore = performance.now() + (prompt ? 0 : Math.min(this.maxBackoffMs, this.intervalMs * 2 ** (this.failures - 1)));
            await this.redis.eval(RELEASE, 1, this.options.key, this.value).catch(() => {});
            throw error;
          } finally {
            this.acquiring = undefined;
          }
        }
      }
    } catch {
      // A failed tick is retried on a later one; onAcquired reports its own failures.
    }
  }
}

/** How long stop() waits on Redis before it lets go without an answer. */
const STOP_WAIT_MS = 2_000;

/** Waits for a promise to settle, at most `limitMs`; its outcome is not wanted, only whether it came in time. */
async function settledWithin(promise: Promise<unknown> | undefined, limitMs: number): Promise<boolean> {
  if (!promise) return true;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), limitMs)));
  const settled = await Promise.race([promise.then(() => true, () => true), limit]);
  clearTimeout(timer);
  return settled;
}
