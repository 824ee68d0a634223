import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { WriterFencedError, type CommitFence } from '../../warehouse/load/commit-fence.js';
import { within } from '../../within.js';

// Taken with a fencing token in one script: the counter grows with every taking, so a holder that lost the lease (a
// stall past its ttl) and took it again, or any later holder, has a larger token than the one it lost.
const TAKE = `if redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return redis.call('incr', KEYS[2]) else return 0 end`;
// Renew only under our own token, release only what we own: compare-and-act in one script, so an expired lease that
// passed on is never extended or deleted by the old holder. A commit's fence check is this renewal (confirm()).
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] and redis.call('get', KEYS[2]) == ARGV[3] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
// The token raised above what a file's commits carry, while we hold the lease under the token we took: a Redis that
// lost its data starts the counter again at 1, and the file's tokens must still only grow.
const RAISE = `if redis.call('get', KEYS[1]) ~= ARGV[1] or redis.call('get', KEYS[2]) ~= ARGV[2] then return 0 end
if tonumber(ARGV[2]) > tonumber(ARGV[3]) then return tonumber(ARGV[2]) end
redis.call('set', KEYS[2], ARGV[3] + 1)
return tonumber(ARGV[3]) + 1`;

export interface WriterLeaseOptions {
  /** The Redis key of the lease: `redisKeys(prefix).writerLease` (src/redis-keys.ts). */
  key: string;
  /** The Redis key of its fencing token: `redisKeys(prefix).writerFence`. */
  fenceKey: string;
  /** How long the lease lives without renewal (ms); default 15 s. A dead holder is replaced after this. */
  ttlMs?: number;
  /** How often the holder renews and a waiter tries to take it (ms); default ttl / 3. */
  intervalMs?: number;
  /** The longest wait before trying again after `onAcquired` failed (ms); default 60 s. */
  maxBackoffMs?: number;
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
  return fileOfLease(await redis.get(key));
}

/** The file a lease's value names (see leaseHolderWrites); undefined for no lease, or one naming none. */
export function fileOfLease(value: string | null): string | undefined {
  const space = value?.indexOf(' ') ?? -1;
  return value && space > 0 ? value.slice(space + 1) : undefined;
}

/**
 * One loader at a time, with a growing fencing token checked in every commit: a holder stalled past the ttl rolls back
 * (test/e2e/lease-fence.int.test.ts); one that cannot open the file backs off (test/engine/writer-lease.int.test.ts).
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
  private token: number | undefined;
  /** Counts the holdings: a fence lent to one holding confirms nothing for a later one. */
  private holding = 0;
  /** Set by retire(): renew what is held, take nothing new. */
  private retired = false;
  /** Failed `onAcquired` calls in a row and when the next try may be made, on the monotonic clock. */
  private failures = 0;
  private notBefore = 0;
  /** When the last renewal that Redis answered was sent, on the monotonic clock: the lease lives a ttl past it. */
  private renewedAt = 0;
  /** A tick's renewal Redis has not answered yet (it is away), with when it was sent: ticks send no second one. */
  private renewing: { sentAt: number; answer: Promise<unknown> } | undefined;

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

  /** The fencing token of the current holding; undefined while the lease is not held. */
  get fenceToken(): number | undefined {
    return this.held ? this.token : undefined;
  }

  /**
   * The fence of the current holding, for its DuckDB commits: `confirm` renews the lease under this holding's token,
   * and rejects once the lease is lost, or taken again since (a new holding, a new token).
   */
  fence(): CommitFence {
    const holding = this.holding;
    return { confirm: () => this.confirm(holding) };
  }

  /**
   * Raises the token above `floor` (the highest a file's commits carry) unless it is above already; false when the
   * lease is not held under its token any more.
   */
  async raiseTokenAbove(floor: number): Promise<boolean> {
    if (!this.held || this.token === undefined) return false;
    const raised = Number(
      await this.redis.eval(
        RAISE,
        2,
        this.options.key,
        this.options.fenceKey,
        this.value,
        String(this.token),
        String(floor),
      ),
    );
    if (raised === 0 || !this.held) return false;
    this.token = raised;
    return true;
  }

  /**
   * The fence check: renewed only if still held under this token and answered within a third of the ttl, leaving
   * the COMMIT two thirds. Any other answer loses the lease: `onLost` runs and the commit rolls back.
   */
  private async confirm(holding: number): Promise<number> {
    const token = this.token;
    if (!this.held || holding !== this.holding || token === undefined) {
      throw new WriterFencedError(
        `this process no longer holds the DuckDB writer lease (${this.options.key}): the commit is rolled back`,
      );
    }
    const sentAt = performance.now();
    const { value: renewed } = await within(this.renew(token), Math.max(100, Math.floor(this.ttlMs / 3)));
    if (renewed === 1 && this.held && holding === this.holding) {
      this.renewedAt = Math.max(this.renewedAt, sentAt);
      return token;
    }
    if (holding === this.holding) void this.lose().catch(() => undefined);
    throw new WriterFencedError(
      `the DuckDB writer lease (${this.options.key}) is no longer held under fencing token ${token} (it expired or passed to another process, or Redis did not answer in time): the commit is rolled back`,
    );
  }

  /** The lease is lost: the holder stops writing (`onLost`), once however many notice it. */
  private lose(): Promise<void> {
    if (!this.held || this.losing) return this.losing?.then(() => undefined) ?? Promise.resolve();
    this.held = false;
    this.token = undefined;
    const losing = Promise.resolve().then(() => this.options.onLost());
    this.losing = losing;
    return losing.finally(() => {
      if (this.losing === losing) this.losing = undefined;
    });
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
    // A tick or release waiting on a Redis that went away may never settle: past the limit the holder closes DuckDB and
    // lets the lease expire on its own. A tick still opening or closing the writer is waited out below.
    let answered =
      !this.ticking ||
      !(await within(this.ticking, redisWaitMs)).timedOut ||
      this.acquiring !== undefined ||
      this.losing !== undefined;
    // What becoming the writer opens must be closed before the lease goes, so it is waited out.
    await this.acquiring?.catch(() => undefined);
    await this.losing?.catch(() => undefined);
    if (this.held) {
      // Held until DuckDB is closed: a load job the close waits for still commits under this holding's token.
      const losing = Promise.resolve().then(() => this.options.onLost());
      this.losing = losing;
      try {
        await losing;
      } finally {
        this.losing = undefined;
        this.held = false;
        this.token = undefined;
      }
      answered = !(await within(this.release(), redisWaitMs)).timedOut && answered;
    }
    return answered;
  }

  private renew(token: number | undefined): Promise<unknown> {
    const { key, fenceKey } = this.options;
    return this.redis.eval(RENEW, 2, key, fenceKey, this.value, String(this.ttlMs), String(token));
  }

  private release(): Promise<unknown> {
    return this.redis.eval(RELEASE, 1, this.options.key, this.value);
  }

  private tick(): Promise<void> {
    if (this.ticking || this.stopped) return this.ticking ?? Promise.resolve();
    this.ticking = this.tryOnce().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async tryOnce(): Promise<void> {
    try {
      if (this.held) {
        if (!this.renewing) {
          const renewing = { sentAt: performance.now(), answer: this.renew(this.token).catch(() => 0) };
          this.renewing = renewing;
          void renewing.answer.finally(() => {
            if (this.renewing === renewing) this.renewing = undefined;
          });
        }
        const { sentAt } = this.renewing;
        const { value: renewed } = await within(this.renewing.answer, this.intervalMs);
        if (renewed === 1) this.renewedAt = Math.max(this.renewedAt, sentAt);
        // Unanswered is lost only once the ttl is over: another process may take it from then on
        // (test/engine/writer-lease.int.test.ts). stop() may have let go meanwhile, without waiting for this answer.
        const lost = renewed === undefined ? performance.now() - this.renewedAt >= this.ttlMs : renewed !== 1;
        if (lost && this.held) await this.lose();
      } else if (!this.retired && !this.losing && performance.now() >= this.notBefore) {
        // Not while a lease lost by a commit's check is still being let go of (`losing`): the file is still open.
        const askedAt = performance.now();
        const taken = Number(
          await this.redis
            .eval(TAKE, 2, this.options.key, this.options.fenceKey, this.value, String(this.ttlMs))
            .catch(() => 0),
        );
        if (taken > 0 && this.stopped) {
          // Taken after stop() stopped waiting for this answer: the process is on its way out.
          await this.release().catch(() => {});
        } else if (taken > 0) {
          this.held = true;
          this.token = taken;
          this.renewedAt = askedAt;
          // A renewal of an earlier holding still unanswered answers for its own token, not this one.
          this.renewing = undefined;
          this.holding += 1;
          try {
            this.acquiring = Promise.resolve(this.options.onAcquired());
            await this.acquiring;
            this.failures = 0;
          } catch (error) {
            // Could not become the writer (the old holder still has the file open, or the file cannot be opened at
            // all): give the lease back and wait longer each time before trying again.
            this.held = false;
            this.token = undefined;
            this.failures += 1;
            const prompt = this.options.retryPromptly?.(error) === true;
            this.notBefore =
              performance.now() +
              (prompt ? 0 : Math.min(this.maxBackoffMs, this.intervalMs * 2 ** (this.failures - 1)));
            await this.release().catch(() => {});
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
