import { describe, expect, it } from 'vitest';
import {
  BESIDE_DUCKDB_BYTES,
  MIN_RELEASE_BYTES,
  openWaitingForLock,
  ReopenTrigger,
  reopenThresholdBytes,
} from '../../src/warehouse/file/memory-release.js';

const MB = 2 ** 20;

describe('when the writer reopens DuckDB', () => {
  it('is never with a threshold of 0', () => {
    expect(new ReopenTrigger(0).due(10_000 * MB)).toBe(false);
  });

  it('is once the resident memory passes the threshold', () => {
    const trigger = new ReopenTrigger(300 * MB);
    expect(trigger.due(300 * MB)).toBe(false);
    expect(trigger.due(301 * MB)).toBe(true);
  });

  it('waits, after a reopen that left the memory high, until reopening again could free MIN_RELEASE_BYTES', () => {
    const trigger = new ReopenTrigger(300 * MB);
    trigger.reopened(290 * MB);
    expect(trigger.due(310 * MB)).toBe(false);
    expect(trigger.due(290 * MB + MIN_RELEASE_BYTES + 1)).toBe(true);
    trigger.reopened(180 * MB);
    expect(trigger.due(301 * MB)).toBe(true);
  });

  it('is at reopenAboveMb, or at DuckDB budget plus what sits beside it', () => {
    expect(reopenThresholdBytes({ memoryLimit: '160MB', reopenAboveMb: 350 })).toBe(350 * MB);
    expect(reopenThresholdBytes({ memoryLimit: '160MB', reopenAboveMb: 0 })).toBe(0);
    expect(reopenThresholdBytes({ memoryLimit: '1GiB' })).toBe(1024 * MB + BESIDE_DUCKDB_BYTES);
  });
});

describe('opening again after a reopen', () => {
  const locked = () => new Error('IO Error: Could not set lock on file "bv.work.duckdb": Conflicting lock is held');

  it('waits out a lock another process took while the file was closed', async () => {
    let attempts = 0;
    const opened = await openWaitingForLock(async () => {
      attempts += 1;
      if (attempts < 3) throw locked();
      return 'instance';
    });
    expect(opened).toBe('instance');
    expect(attempts).toBe(3);
  });

  it('gives up on a lock held past the wait, and at once on any other error', async () => {
    await expect(
      openWaitingForLock(async () => {
        throw locked();
      }, 0),
    ).rejects.toThrow(/Conflicting lock/);
    let attempts = 0;
    await expect(
      openWaitingForLock(async () => {
        attempts += 1;
        throw new Error('IO Error: No space left on device');
      }),
    ).rejects.toThrow(/No space left/);
    expect(attempts).toBe(1);
  });
});
