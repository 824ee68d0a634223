import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SqlFile {
  /** The leading number of the file name (`003_reports.sql` -> 3). */
  version: number;
  name: string;
  path: string;
  text: string;
}

const NUMBERED_SQL_FILE = /^(\d+)_[A-Za-z0-9_-]+\.sql$/;

/** The numbered `.sql` files of a folder in version order; two files with one number are refused. */
export function readNumberedSqlFiles(dir: string): SqlFile[] {
  const files: SqlFile[] = [];
  for (const name of readdirSync(dir)) {
    const match = NUMBERED_SQL_FILE.exec(name);
    if (!match) continue;
    const path = join(dir, name);
    files.push({ version: Number(match[1]), name, path, text: readFileSync(path, 'utf8') });
  }
  files.sort((a, b) => a.version - b.version || a.name.localeCompare(b.name));
  for (let i = 1; i < files.length; i++) {
    if (files[i]!.version === files[i - 1]!.version) {
      throw new Error(`${dir}: ${files[i - 1]!.name} and ${files[i]!.name} share the number ${files[i]!.version}`);
    }
  }
  return files;
}
