import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskFullError } from '../../src/warehouse/file/writer-fault.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';
import { fillVolume, tmpfsRefusal } from '../support/tmpfs.js';

/**
 * A working file whose write the disk refused closes without a checkpoint, even once there is room again: the log holds
 * only what was committed, and the next open replays it (src/warehouse/warehouse.ts, `close`).
 */

const refusal = tmpfsRefusal();
if (refusal) console.warn(`test/warehouse/faulted-close.int.test.ts skipped: ${refusal}`);

let tmp: ReturnType<typeof tempDir>;
let small: string;
let mounted = false;

describe.skipIf(refusal !== undefined)('closing a working file after a full disk', () => {
  beforeAll(() => {
    tmp = tempDir('faulted-close');
    small = join(tmp.path, 'small');
    mkdirSync(small);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', small]);
    mounted = true;
  });
  afterAll(() => {
    if (mounted) execFileSync('umount', [small]);
    tmp?.remove();
  });

  it('leaves the committed runs in the log for the next open, and checkpoints nothing', async () => {
    const path = join(small, 'bv.work.duckdb');
    const wh = await openWarehouse(path);
    await wh.startRun({ runId: 'kept', kind: 'backfill', brands: [7], streams: ['conversations'] });
    const filler = fillVolume(small, 0);
    let refused: unknown;
    for (let n = 0; n < 1000 && refused === undefined; n++) {
      await wh
        .startRun({ runId: `run-${n}`, kind: 'backfill', brands: [7], streams: ['conversations'] })
        .catch((error: unknown) => (refused = error));
    }
    expect(refused).toBeInstanceOf(DiskFullError);
    rmSync(filler);
    await wh.close();
    expect(existsSync(`${path}.wal`)).toBe(true);

    const reopened = await openWarehouse(path);
    try {
      expect(await reopened.hasRun('kept')).toBe(true);
    } finally {
      await reopened.close();
    }
  });
});
