import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { errorMessage } from '../../format.js';

/**
 * DuckDB refused to open a file because another process holds its lock: a file open for writing cannot be opened
 * at all by another process. Only this error may blame "another program"; every other open failure says its own cause.
 */
export class DatabaseLockedError extends Error {
  readonly code = 'database_locked';
  /**
   * The holder is a bvsync (this warehouse's last writer still closing, or one of another prefix) or a process exiting:
   * either may let go soon (test/e2e/setup-errors.int.test.ts "exiting").
   */
  readonly holderMayLetGo: boolean;
  constructor(
    readonly path: string,
    cause: Error,
  ) {
    const held = `${path} is held by another process (${cause.message.replace(/^IO Error: /, '')})`;
    const holder = lockHolder(path, cause.message);
    super(
      holder?.kind === 'bvsync'
        ? `${held}. It is another bvsync (${holder.command}): the processes of one warehouse take turns writing through ` +
            "the writer lease of their Redis prefix, so unless it is this warehouse's last writer still closing, it runs " +
            'under another prefix or another Redis. Give every process of this warehouse the same REDIS_URL and redisPrefix (BVSYNC_REDIS_PREFIX).'
        : holder?.kind === 'exiting'
          ? `${held}. It is ${holder.command}, exiting: its lock goes with it.`
          : `${held}. Is another program (${holder?.command ?? 'a DuckDB shell, a notebook'}) holding the .work.duckdb file? ` +
            'Analysts open the published file, read-only.',
      { cause },
    );
    this.name = 'DatabaseLockedError';
    this.holderMayLetGo = holder?.kind === 'bvsync' || holder?.kind === 'exiting';
  }
}

/** DuckDB's words for a lock held by another process (`Could not set lock on file "...": Conflicting lock is held in ...`). */
export function isLockConflict(error: unknown): boolean {
  return /Could not set lock on file|Conflicting lock is held/i.test(errorMessage(error));
}

/**
 * The process DuckDB names as the lock's holder, by its command line (Linux's /proc), only when that process has the
 * file open: a lock on a network file system may name a process of another machine.
 */
function lockHolder(
  path: string,
  message: string,
): { command: string; kind: 'bvsync' | 'exiting' | 'other' } | undefined {
  const pid = /\(PID (\d+)\)/.exec(message)?.[1];
  if (!pid) return undefined;
  let args: string[];
  try {
    // The links read as the real path, which a symlinked folder (macOS's /tmp, a mounted volume) changes.
    const file = realpathSync(path);
    if (!readdirSync(`/proc/${pid}/fd`).some((fd) => readlinkOrNothing(`/proc/${pid}/fd/${fd}`) === file))
      return undefined;
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
  // The kernel empties an exiting process's command line before it closes its files and their locks.
  if (args.length === 0) return { command: `PID ${pid}`, kind: 'exiting' };
  const bvsyncAt = args.findIndex((arg) => /^bvsync(\.js)?$/.test(basename(arg)));
  const shown = (bvsyncAt >= 0 ? ['bvsync', ...args.slice(bvsyncAt + 1)] : args).join(' ').replace(/\s+/g, ' ');
  const command = `PID ${pid}: ${shown.length > 100 ? `${shown.slice(0, 99)}…` : shown}`;
  return { command, kind: bvsyncAt >= 0 ? 'bvsync' : 'other' };
}

function readlinkOrNothing(link: string): string | undefined {
  try {
    return readlinkSync(link);
  } catch {
    return undefined;
  }
}
