import { describe, expect, it } from 'vitest';
import { EXIT_DONE, EXIT_NOT_DONE, exitCodeOfRun } from '../src/cli/exit-codes.js';
import {
  FINISHED_RUN_STATUSES,
  isFinishedRunStatus,
  RUN_LOG_STATUSES,
  RUN_STATUSES,
  runStatusOfSlices,
  UNFINISHED_RUN_STATUSES,
} from '../src/vocabulary.js';

describe('the status words', () => {
  it('a run is unfinished or finished, never both; _sync_runs knows the finished words and running', () => {
    expect(RUN_STATUSES).toEqual([...UNFINISHED_RUN_STATUSES, ...FINISHED_RUN_STATUSES]);
    for (const status of UNFINISHED_RUN_STATUSES) expect(isFinishedRunStatus(status)).toBe(false);
    for (const status of FINISHED_RUN_STATUSES) expect(isFinishedRunStatus(status)).toBe(true);
    expect(RUN_LOG_STATUSES).toEqual(['running', 'complete', 'incomplete', 'failed', 'cancelled']);
    expect(RUN_LOG_STATUSES).not.toContain('partial');
  });

  it('a finished run is complete, incomplete or failed by its slices', () => {
    expect(runStatusOfSlices({ total: 0, failed: 0, incomplete: 0 })).toBe('complete');
    expect(runStatusOfSlices({ total: 5, failed: 0, incomplete: 0 })).toBe('complete');
    expect(runStatusOfSlices({ total: 5, failed: 0, incomplete: 1 })).toBe('incomplete');
    expect(runStatusOfSlices({ total: 5, failed: 2, incomplete: 0 })).toBe('incomplete');
    expect(runStatusOfSlices({ total: 5, failed: 5, incomplete: 0 })).toBe('failed');
  });

  it('a sync or backfill exits 0 only when its run finished without a failed slice', () => {
    expect(exitCodeOfRun('complete', 0, [])).toBe(EXIT_DONE);
    expect(exitCodeOfRun('incomplete', 0, [])).toBe(EXIT_DONE);
    expect(exitCodeOfRun('incomplete', 1, [])).toBe(EXIT_NOT_DONE);
    // Every slice incomplete: nothing was read whole, which a script must not take for done.
    expect(exitCodeOfRun('incomplete', 0, ['conversations'])).toBe(EXIT_NOT_DONE);
    expect(exitCodeOfRun('failed', 3, [])).toBe(EXIT_NOT_DONE);
    expect(exitCodeOfRun('cancelled', 0, [])).toBe(EXIT_NOT_DONE);
  });
});
