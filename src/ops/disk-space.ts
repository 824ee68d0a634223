import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Space on one volume, as an unprivileged process may use it. */
export interface DiskSpace {
  /** The folder asked about (the working file's). */
  folder: string;
  freeBytes: number;
  sizeBytes: number;
}

/** The space of the volume holding `file` (its folder's); undefined when the folder cannot be read (not made yet). */
export async function diskSpaceOf(file: string): Promise<DiskSpace | undefined> {
  try {
    const folder = dirname(file);
    const stats = await statfs(folder);
    // bavail, not bfree: the blocks reserved for root are not bvsync's to fill.
    return { folder, freeBytes: stats.bavail * stats.bsize, sizeBytes: stats.blocks * stats.bsize };
  } catch {
    return undefined;
  }
}
