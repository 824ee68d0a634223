import { FolderError, makeFolder } from '../make-folder.js';
import { UsageError } from './fail.js';

/** Creates a folder an option names (`--out`); one that cannot be made is the user's to change, so a usage error. */
export function makeOutFolder(folder: string, purpose: string): void {
  try {
    makeFolder(folder, purpose);
  } catch (error) {
    if (error instanceof FolderError) throw new UsageError(`${error.message}; give --out a folder you can write`);
    throw error;
  }
}
