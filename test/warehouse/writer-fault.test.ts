import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DatabaseInvalidatedError,
  DiskFullError,
  NEARLY_FULL_BYTES,
  writerFaultOf,
} from '../../src/warehouse/file/writer-fault.js';
import type { VolumeSpace } from '../../src/warehouse/file/volume-space.js';

const WORKING = '/data/bv.work.duckdb';
const full = (): VolumeSpace => ({ folder: '/data', freeBytes: 0, sizeBytes: 40 * 2 ** 20 });
const roomy = (): VolumeSpace => ({ folder: '/data', freeBytes: 10 * 2 ** 30, sizeBytes: 20 * 2 ** 30 });
/** DuckDB's words for a database a fatal error invalidated, quoting that error. */
const invalidatedBy = (original: string) =>
  new Error(
    `FATAL Error: Failed: database has been invalidated because of a previous fatal error.\nOriginal error: "${original}"`,
  );

/** DuckDB's and Node's words, as met on a full tmpfs and in the run. */
describe('reading an error of the working database as a fault of the machine', () => {
  it('reads a write the disk refused as a full disk, naming the file and the free space, whatever space remains', () => {
    const error = new Error(
      'FATAL Error: Failed to create checkpoint because of error: Could not write file "/data/bv.work.duckdb.wal": No space left on device',
    );
    const fault = writerFaultOf(error, WORKING, roomy);
    expect(fault).toBeInstanceOf(DiskFullError);
    expect(fault!.message).toMatch(
      /^the disk is full where the warehouse writes \/data\/bv\.work\.duckdb\.wal: 10\.0 GiB free of 20\.0 GiB on its volume \(\/data\)/,
    );
    expect(fault!.message).toContain('the unfinished run is bound to its path');
    expect(fault!.message).toContain('nothing published was changed');
  });

  it("reads Node's ENOSPC, and DuckDB's offload and temporary-space errors, as a full disk", () => {
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      path: '/data/bv.duckdb.tmp-1',
    });
    expect(writerFaultOf(enospc, WORKING, roomy)).toMatchObject({ code: 'disk_full', path: '/data/bv.duckdb.tmp-1' });
    const offload = new Error(
      "Out of Memory Error: failed to offload data block of size 256.0 KiB (38.1 MiB/38.1 MiB used). This limit was set by the 'max_temp_directory_size' setting.",
    );
    expect(writerFaultOf(offload, WORKING, roomy)).toBeInstanceOf(DiskFullError);
  });

  it("names a publish's copy by its target, with the working file's size it needed room for", () => {
    const dir = mkdtempSync(join(tmpdir(), 'writer-fault-'));
    try {
      const working = join(dir, 'bv.work.duckdb');
      writeFileSync(working, Buffer.alloc(3 * 2 ** 20));
      const copyfile = Object.assign(
        new Error(`ENOSPC: no space left on device, copyfile '${working}' -> '${dir}/bv.duckdb.tmp-1'`),
        {
          code: 'ENOSPC',
          syscall: 'copyfile',
          path: working,
          dest: `${dir}/bv.duckdb.tmp-1`,
        },
      );
      const fault = writerFaultOf(copyfile, working, roomy);
      expect(fault).toMatchObject({ code: 'disk_full', path: `${dir}/bv.duckdb.tmp-1` });
      expect(fault!.message).toContain(`; a publish copies ${working} whole, 3.0 MiB. The write failed with: ENOSPC`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads an invalidated database by what invalidated it: the disk when it was the disk', () => {
    const invalidated = new Error(
      'FATAL Error: Failed: database has been invalidated because of a previous fatal error. The database must be restarted prior to being used again.\n' +
        'Original error: "Failed to create checkpoint because of error: Could not write file "/data/bv.work.duckdb": No space left on device"',
    );
    const fault = writerFaultOf(invalidated, WORKING, roomy);
    expect(fault).toBeInstanceOf(DiskFullError);
    expect(fault!.message).toContain('The write failed with: Failed to create checkpoint because of error');
    const other = invalidatedBy('INTERNAL Error: something else');
    expect(writerFaultOf(other, WORKING, roomy)).toBeInstanceOf(DatabaseInvalidatedError);
    expect(writerFaultOf(other, WORKING, roomy)!.message).toContain('. Run the same command again');
  });

  it('asks for write access when the file system refused the write that invalidated the database', () => {
    const denied = invalidatedBy('IO Error: Could not remove file "/data/bv.work.duckdb.wal": Permission denied');
    const fault = writerFaultOf(denied, WORKING, roomy);
    expect(fault).toBeInstanceOf(DatabaseInvalidatedError);
    const squashed = new Error(denied.message.replace('Permission denied', 'Operation not permitted'));
    expect(writerFaultOf(squashed, WORKING, roomy)!.message).toContain('Give this process write access');
    expect(fault!.message).toContain(
      `Give this process write access to ${dirname(WORKING)} and the file the error names (permissions, a read-only mount), then run the same command again`,
    );
  });

  it('reads an out-of-memory or a failed write as a full disk only while the volume is nearly full', () => {
    const oom = new Error('Out of Memory Error: could not allocate block of size 256.0 KiB (256.0 MiB/256.0 MiB used)');
    expect(writerFaultOf(oom, WORKING, full)).toBeInstanceOf(DiskFullError);
    expect(writerFaultOf(oom, WORKING, roomy)).toBeUndefined();
    const denied = new Error('IO Error: Could not write file "/data/bv.work.duckdb": Permission denied');
    expect(writerFaultOf(denied, WORKING, () => ({ ...roomy(), freeBytes: NEARLY_FULL_BYTES + 1 }))).toBeUndefined();
  });

  it("leaves a job's own errors alone", () => {
    expect(
      writerFaultOf(
        new Error('Constraint Error: Duplicate key "id: 1" violates primary key constraint'),
        WORKING,
        full,
      ),
    ).toBeUndefined();
    expect(writerFaultOf('not an error', WORKING, full)).toBeUndefined();
  });
});
