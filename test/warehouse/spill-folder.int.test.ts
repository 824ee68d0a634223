import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';

/**
 * DuckDB spills what does not fit in memory_limit to `<file>.tmp/` and removes its files when it closes, but not
 * when it is killed, and never the folder; reopening the file does not either (measured on 1.5: 35 MB of
 * duckdb_temp_storage_*.tmp outlived a kill -9 and two later opens).
 */
let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir('spill-folder')));
afterEach(() => tmp.remove());

async function openWith(spillFiles: string[]): Promise<string> {
  const path = join(tmp.path, 'bv.work.duckdb');
  await (await openWarehouse(path)).close();
  mkdirSync(`${path}.tmp`);
  for (const name of spillFiles) writeFileSync(join(`${path}.tmp`, name), 'spilled by a process that was killed');
  await (await openWarehouse(path)).close();
  return `${path}.tmp`;
}

describe("a dead process's spill folder beside the working file", () => {
  it("is removed when the writer opens the file, with DuckDB's spill files in it", async () => {
    const folder = await openWith(['duckdb_temp_storage_DEFAULT-0.tmp', 'duckdb_temp_storage_S96K-0.tmp']);
    expect(existsSync(folder)).toBe(false);
  });

  it("keeps files that are not DuckDB's, and so the folder", async () => {
    const folder = await openWith(['duckdb_temp_storage_DEFAULT-0.tmp', 'notes.txt']);
    expect(readdirSync(folder)).toEqual(['notes.txt']);
  });
});
