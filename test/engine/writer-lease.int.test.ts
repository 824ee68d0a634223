import { afterAll, describe, expect, it } from 'vitest';
import { WriterLease } from '../../src/engine/writer/writer-lease.js';
import { redisKeys } from '../../src/redis-keys.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('lease');
const redis = testRedis();
afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('WriterLease', () => {
  it('gives the lease to one process at a time and passes it on when the holder stops', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-writer`);
    const events: string[] = [];
    const make = (name: string) =>
      new WriterLease(redis, {
        key,
        fenceKey,
        // A ttl 20 intervals long: a busy box that runs a renewal late by under 1.9 s does not lose the lease.
        ttlMs: 2_000,
        intervalMs: 100,
        onAcquired: () => void events.push(`${name}+`),
        onLost: () => void events.push(`${name}-`),
      });
    const a = make('a');
    const b = make('b');
    await a.start();
    await b.start();
    expect(a.isHeld).toBe(true);
    expect(b.isHeld).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // longer than the ttl: renewals keep it with a
    expect(a.isHeld).toBe(true);
    expect(b.isHeld).toBe(false);
    await a.stop();
    await until(() => b.isHeld);
    await b.stop();
    expect(events).toEqual(['a+', 'a-', 'b+', 'b-']);
  });

  it('stopped while becoming the writer, waits for that, then closes what it opened and frees the lease', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-slow-open`);
    const events: string[] = [];
    const lease = new WriterLease(redis, {
      key,
      fenceKey,
      ttlMs: 10_000,
      intervalMs: 100,
      // Opening DuckDB after a crash (WAL replay) or with migrations to run takes seconds, and asks Redis nothing.
      onAcquired: async () => {
        events.push('opening');
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        events.push('opened');
      },
      onLost: () => void events.push('closed'),
    });
    const started = lease.start();
    await until(() => events.includes('opening'));
    await lease.stop();
    expect(events).toEqual(['opening', 'opened', 'closed']);
    expect(lease.isHeld).toBe(false);
    expect(await redis.get(key)).toBeNull();
    await started;
  });

  it('stopped while a tick closes the writer after losing the lease, waits for the close', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-slow-close`);
    const events: string[] = [];
    const lease = new WriterLease(redis, {
      key,
      fenceKey,
      ttlMs: 10_000,
      intervalMs: 100,
      onAcquired: () => void events.push('opened'),
      onLost: async () => {
        events.push('closing');
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        events.push('closed');
      },
    });
    await lease.start();
    await redis.set(key, 'another-process'); // lost: its next renewal finds another holder
    await until(() => events.includes('closing'));
    expect(await lease.stop()).toBe(true);
    expect(events).toEqual(['opened', 'closing', 'closed']);
    expect(await redis.get(key)).toBe('another-process');
  });

  it('retired, takes a free lease no more', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-retired`);
    await redis.set(key, 'another-process', 'PX', 300);
    const lease = new WriterLease(redis, {
      key,
      fenceKey,
      ttlMs: 300,
      intervalMs: 50,
      onAcquired: () => {},
      onLost: () => {},
    });
    await lease.start();
    lease.retire();
    await new Promise((resolve) => setTimeout(resolve, 700)); // the other holder's lease has expired meanwhile
    expect(await redis.get(key)).toBeNull();
    expect(lease.isHeld).toBe(false);
    await lease.stop();
  });

  it('passes on after the ttl when the holder dies without releasing', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-dead`);
    await redis.set(key, 'a-dead-process', 'PX', 500);
    const lease = new WriterLease(redis, {
      key,
      fenceKey,
      ttlMs: 500,
      intervalMs: 50,
      onAcquired: () => {},
      onLost: () => {},
    });
    await lease.start();
    expect(lease.isHeld).toBe(false);
    await until(() => lease.isHeld, 3000);
    await lease.stop();
    expect(await redis.get(key)).toBeNull();
  });

  it('notices a lost lease and reports it', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-stolen`);
    let lost = false;
    const lease = new WriterLease(redis, {
      key,
      fenceKey,
      ttlMs: 2000,
      intervalMs: 50,
      onAcquired: () => {},
      onLost: () => void (lost = true),
    });
    await lease.start();
    expect(lease.isHeld).toBe(true);
    await redis.set(key, 'someone-else');
    await until(() => lost);
    expect(lease.isHeld).toBe(false);
    await lease.stop();
    expect(await redis.get(key)).toBe('someone-else');
  });

  it('counts the lease lost once a ttl passed with no renewal answered (Redis away), and not before', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-away`);
    const away = testRedis();
    const unanswered: Array<{ name: string; reject: (error: Error) => void }> = [];
    let scriptsAtLoss = -1;
    const lease = new WriterLease(away, {
      key,
      fenceKey,
      ttlMs: 1000,
      intervalMs: 50,
      onAcquired: () => {},
      onLost: () => void (scriptsAtLoss = unanswered.length),
    });
    // Redis stops answering the lease's scripts once `isAway`, as an offline queue holds them during an outage.
    const send = away.sendCommand.bind(away);
    let isAway = false;
    let lastAnsweredSentAt = 0;
    // A command queued while the client connects passes here twice; its first pass is when the lease sent it.
    const seen = new WeakSet<object>();
    away.sendCommand = (command, stream) => {
      const script = command.name === 'eval' || command.name === 'evalsha';
      if (!script || !isAway) {
        if (script && !seen.has(command)) lastAnsweredSentAt = performance.now();
        seen.add(command);
        return send(command, stream);
      }
      unanswered.push({ name: command.name, reject: (error) => command.reject(error) });
      return command.promise;
    };
    await lease.start();
    expect(lease.isHeld).toBe(true);
    isAway = true;
    await until(() => scriptsAtLoss >= 0);
    // Measured from the last renewal Redis answered, so a busy event loop cannot make the loss look early.
    expect(performance.now() - lastAnsweredSentAt).toBeGreaterThanOrEqual(1000 - 50);
    // One renewal waited for the whole ttl: the ticks meanwhile sent no second one beside it.
    expect(scriptsAtLoss).toBe(1);
    expect(lease.isHeld).toBe(false);
    away.sendCommand = send;
    for (const command of unanswered) command.reject(new Error('Redis is back'));
    expect(await lease.stop()).toBe(true);
    away.disconnect();
  });

  it('gives the lease back when becoming the writer fails, and tries again', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-retry`);
    let tries = 0;
    const lease = new WriterLease(redis, {
      key,
      fenceKey,
      ttlMs: 1000,
      intervalMs: 50,
      onAcquired: () => {
        tries += 1;
        if (tries < 3) throw new Error('file still locked');
      },
      onLost: () => {},
    });
    await lease.start();
    await until(() => lease.isHeld);
    expect(tries).toBe(3);
    await lease.stop();
  });

  /** When each of a lease's first six tries to become the writer came, every one failing with `failure`. */
  async function failingTries(
    name: string,
    failure: string,
    options: { maxBackoffMs: number; retryPromptly?: (error: unknown) => boolean },
  ) {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-${name}`);
    const tries: number[] = [];
    const lease = new WriterLease(redis, {
      key,
      fenceKey,
      ttlMs: 1000,
      intervalMs: 50,
      ...options,
      onAcquired: () => {
        tries.push(performance.now());
        throw new Error(failure);
      },
      onLost: () => {},
    });
    await lease.start();
    await until(() => tries.length >= 6, 10_000);
    await lease.stop();
    return { tries, key };
  }

  it('waits twice as long after each failed try, up to its limit, so a file that stays unusable is not hammered', async () => {
    const { tries, key } = await failingTries('backoff', 'not a DuckDB file', { maxBackoffMs: 200 });
    const gaps = tries.slice(1).map((at, i) => at - tries[i]!);
    // Lower bounds only: a loaded machine makes gaps longer, never shorter. 50, 100, 200, then the limit.
    const expected = [50, 100, 200, 200, 200];
    gaps.slice(0, 5).forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(expected[i]! - 5));
    expect(await redis.get(key)).toBeNull(); // handed back after every failure
  });

  it('tries every interval after a failure it is told to retry promptly (a file another bvsync is closing)', async () => {
    const { tries } = await failingTries('prompt', 'held by another bvsync', {
      maxBackoffMs: 2_000,
      retryPromptly: (error) => (error as Error).message === 'held by another bvsync',
    });
    // Growing to 2 s, each gap would be at least 50, 100, 200, 400, 800 ms; a try every interval (50 ms) breaks that
    // floor at least once, however late a loaded machine runs the ticks.
    const gaps = tries.slice(1).map((at, i) => at - tries[i]!);
    const floors = [50, 100, 200, 400, 800];
    expect(
      gaps.slice(1, 5).some((gap, i) => gap < floors[i + 1]! - 5),
      `gaps ${gaps.map(Math.round).join(', ')} ms`,
    ).toBe(true);
  });

  it('keeps trying after its wall clock is set back: its waits run on the monotonic clock', async () => {
    const { writerLease: key, writerFence: fenceKey } = redisKeys(`${prefix}-clock`);
    let tries = 0;
    const realNow = Date.now;
    const lease = new WriterLease(redis, {
      key,
      fenceKey,
      ttlMs: 1000,
      intervalMs: 50,
      maxBackoffMs: 100,
      onAcquired: () => {
        tries += 1;
        // After the first failure's wait is set, the clock steps back an hour (NTP, a VM resumed).
        if (tries === 1) setTimeout(() => (Date.now = () => realNow() - 3_600_000), 0);
        throw new Error('not a DuckDB file');
      },
      onLost: () => {},
    });
    try {
      await lease.start();
      await until(() => tries >= 4, 5_000);
    } finally {
      Date.now = realNow;
      await lease.stop();
    }
  });
});
