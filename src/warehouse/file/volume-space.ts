import { existsSync, statSync, statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** The space of the volume a path is on, as an unprivileged process may use it. */
export interface VolumeSpace {
  /** The folder measured: the path's own, or the nearest one above it that exists. */
  folder: string;
  freeBytes: number;
  sizeBytes: number;
}

/** The volume of `path` (a file or folder, existing or not); undefined when it cannot be measured. */
export function volumeSpace(path: string): VolumeSpace | undefined {
  let folder = resolve(path);
  try {
    if (!statSync(folder).isDirectory()) folder = dirname(folder);
  } catch {
    folder = dirname(folder);
  }
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  try {
    const stats = statfsSync(folder);
    // bavail, not bfree: the blocks reserved for root are not there for an ordinary writer.
    return { folder, freeBytes: stats.bavail * stats.bsize, sizeBytes: stats.blocks * stats.bsize };
  } catch {
    return undefined;
  }
}
