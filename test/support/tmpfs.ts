import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { volumeSpace } from '../../src/warehouse/file/volume-space.js';

/** Why a tmpfs cannot be mounted here (it needs root; CI runs as root on this machine kind), or undefined. */
export function tmpfsRefusal(): string | undefined {
  const probe = mkdtempSync(join(tmpdir(), 'bvsync-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim()}); the full-disk tests need root`;
  } finally {
    rmdirSync(probe);
  }
}

/** Fills the volume of `folder` up to `leave` bytes free, with one file; returns its path. */
export function fillVolume(folder: string, leave: number): string {
  const path = join(folder, 'filler');
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(1024 * 1024, 1);
  try {
    for (;;) {
      const free = volumeSpace(folder)!.freeBytes;
      if (free <= leave) break;
      writeSync(fd, block, 0, Math.min(block.length, free - leave));
    }
  } finally {
    closeSync(fd);
  }
  return path;
}
