import { describe, expect, it } from 'vitest';
import {
  BESIDE_DUCKDB_BYTES,
  MIN_RELEASE_BYTES,
  ReopenTrigger,
  reopenThresholdBytes,
} from '../../src/warehouse/memory-release.js';

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
