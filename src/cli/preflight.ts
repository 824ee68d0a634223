import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { connect } from 'node:net';
import type { Config } from '../config/schema.js';
import { workingPathFor } from '../warehouse/paths.js';
import { UsageError } from './fail.js';

// A DuckDB file carries this magic at byte 8 of its header.
const DUCKDB_MAGIC = 'DUCK';

/**
 * Checks made before a run touches anything, so a bad setup gets one clear message instead of a run that retries
 * quietly: the database files are DuckDB files (or absent), and the API's host accepts connections. The API check
 * opens a TCP connection only: it spends no API call.
 */
export async function preflight(config: Config): Promise<void> {
  checkDatabaseFiles(config);
  if (config.api.url) await checkReachable(config.api.url);
}

/** The published and the working file are DuckDB files, or do not exist yet. */
export function checkDatabaseFiles(config: Config): void {
  for (const path of [config.db, workingPathFor(config.db)]) checkDuckDbFile(path);
}

export function checkDuckDbFile(path: string): void {
  if (!existsSync(path)) return;
  const header = Buffer.alloc(12);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    readSync(fd, header, 0, 12, 0);
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 1);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (header.subarray(8, 12).toString('latin1') !== DUCKDB_MAGIC) {
    throw new UsageError(`${path} is not a DuckDB database; move it away or set BVSYNC_DB (config "db") to another file`, 1);
  }
}

export async function checkReachable(url: string, timeoutMs = 5_000): Promise<void> {
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host: parsed.hostname, port });
    const fail = (why: string) => {
      socket.destroy();
      reject(new UsageError(`cannot reach the API at ${parsed.origin}: ${why}; check BVSYNC_API_URL (config "api.url") and the network`, 1));
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs / 1000} s`));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
  });
}
