import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describeErrno, FolderError, makeFolder } from '../../make-folder.js';
import { UsageError } from '../fail.js';

/**
 * Creates a folder an option names (`--out`) and checks that a file can be written in it, before any work is done;
 * one that cannot be made or written is the user's to change, so a usage error.
 */
export function makeOutFolder(folder: string, purpose: string): void {
  try {
    makeFolder(folder, purpose);
  } catch (error) {
    if (error instanceof FolderError) throw new UsageError(`${error.message}; give --out a folder you can write`);
    throw error;
  }
  checkWritable(folder, purpose);
}

/**
 * Writes and removes a file rather than asking `fs.access(W_OK)`: root passes that check anywhere, and /proc passes it
 * yet refuses every new file.
 */
function checkWritable(folder: string, purpose: string): void {
  // A new file of a name nobody can guess ('wx' refuses one already there), so a symlink planted under a guessable name
  // cannot get its target truncated.
  const probe = join(folder, `.bvsync-write-check-${randomBytes(8).toString('hex')}`);
  try {
    closeSync(openSync(probe, 'wx'));
  } catch (error) {
    throw new UsageError(
      `cannot write in the folder ${folder} for ${purpose}: ${describeErrno(error)}; give --out a folder you can write`,
    );
  }
  rmSync(probe, { force: true });
}
