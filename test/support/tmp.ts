import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary folder and its removal, for tests that write DuckDB files. */
export function tempDir(name: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `bvsync-${name}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
