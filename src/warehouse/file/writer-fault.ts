import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { errnoOf, formatBytes } from '../../format.js';
import { volumeSpace, type VolumeSpace } from './volume-space.js';

/**
 * The one place that reads a working-database error as a machine's fault (full disk, invalidated DuckDB): every later
 * write would fail too, so the writer stops (test/warehouse/writer-fault.test.ts, test/engine/disk-full.int.test.ts).
 */
export type WriterFault = DiskFullError | DatabaseInvalidatedError;

/** Words of a write the disk refused, whatever the free space measures afterwards (a failed write frees what it took). */
const DISK_FULL_WORDS =
  /No space left on device|ENOSPC|Disk quota exceeded|EDQUOT|failed to offload data block|max_temp_directory_size/i;

/**
 * Words that mean a full disk when the volume is nearly full, and may mean something else when it is not: a write
 * refused for another reason (permissions), a memory limit met without any spilling.
 */
const DISK_FULL_IF_NEARLY_FULL_WORDS =
  /Could not write file|Could not (?:extend|truncate) file|Out of Memory Error|temporary (?:file|directory)/i;

/** Words of a write the file system refused this process, whatever the room: its rights, or a read-only mount. */
const WRITE_REFUSED_WORDS = /Permission denied|EACCES|Operation not permitted|EPERM|Read-only file system|EROFS/;

/** DuckDB's words once a fatal error has invalidated the instance: every later statement fails with them. */
const INVALIDATED_WORDS = /database has been invalidated/i;

/** Free space under which a volume counts as nearly full: a few of DuckDB's row groups, or a spill of its memory. */
export const NEARLY_FULL_BYTES = 64 * 1024 * 1024;

/** The disk the warehouse writes to is full: no commit can go in until there is room. */
export class DiskFullError extends Error {
  readonly code = 'disk_full';
  constructor(
    /** The file DuckDB (or the copy) could not write, else the working file. */
    readonly path: string,
    readonly space: VolumeSpace | undefined,
    cause: Error,
    /** What the failed write needed room for, when known: a publish's whole copy of the working file. */
    need?: string,
  ) {
    const room = space
      ? `${formatBytes(space.freeBytes)} free of ${formatBytes(space.sizeBytes)} on its volume (${space.folder})`
      : 'its free space could not be measured';
    super(
      `the disk is full where the warehouse writes ${path}: ${room}${need ? `; ${need}` : ''}. ` +
        `The write failed with: ${firstLine(cause.message)}. ` +
        'This process stopped writing; nothing published was changed and the slices committed before are kept. ' +
        'Free space on that volume, then run the same command again: it carries on where this one stopped. ' +
        'Moving the warehouse does not: the unfinished run is bound to its path (docs/operations.md, "Disk space").',
      { cause },
    );
    this.name = 'DiskFullError';
  }
}

/** A fatal error invalidated the DuckDB instance of the working file: it must be reopened before it takes a write. */
export class DatabaseInvalidatedError extends Error {
  readonly code = 'database_invalidated';
  constructor(
    readonly path: string,
    cause: Error,
  ) {
    const refused = WRITE_REFUSED_WORDS.test(cause.message)
      ? `Give this process write access to ${dirname(path)} and the file the error names (permissions, a read-only mount), then run `
      : 'Run ';
    super(
      `DuckDB stopped writing ${path} after a fatal error and must be reopened: ${firstLine(cause.message)}. ` +
        'This process stopped loading; nothing published was changed and the slices committed before are kept. ' +
        `${refused}the same command again; if it happens again, see docs/troubleshooting.md, "database has been invalidated".`,
      { cause },
    );
    this.name = 'DatabaseInvalidatedError';
  }
}

export function isWriterFault(error: unknown): error is WriterFault {
  return error instanceof DiskFullError || error instanceof DatabaseInvalidatedError;
}

/**
 * The fault an error of writing `databasePath` (the working file, or a copy of it) shows, or undefined for an error
 * of the job alone. `space` measures a volume; tests give their own.
 */
export function writerFaultOf(
  error: unknown,
  databasePath: string,
  space: (path: string) => VolumeSpace | undefined = volumeSpace,
): WriterFault | undefined {
  if (isWriterFault(error)) return error;
  if (!(error instanceof Error)) return undefined;
  const message = error.message;
  const code = errnoOf(error);
  const copy = copyOf(error);
  const path = copy?.to ?? pathOf(error) ?? databasePath;
  if (code === 'ENOSPC' || code === 'EDQUOT' || DISK_FULL_WORDS.test(message))
    return new DiskFullError(path, space(path), error, copy && publishCopyNeed(copy.from));
  if (DISK_FULL_IF_NEARLY_FULL_WORDS.test(message)) {
    const measured = space(path);
    if (measured && measured.freeBytes < NEARLY_FULL_BYTES) return new DiskFullError(path, measured, error);
  }
  if (INVALIDATED_WORDS.test(message)) return new DatabaseInvalidatedError(databasePath, error);
  return undefined;
}

/** The source and the target of a failed file copy (a publish copies the working file whole), from Node's error. */
function copyOf(error: Error): { from: string; to: string } | undefined {
  const { syscall, path, dest } = error as NodeJS.ErrnoException & { dest?: unknown };
  return syscall === 'copyfile' && typeof path === 'string' && typeof dest === 'string'
    ? { from: path, to: dest }
    : undefined;
}

/** A publish's need: room for a whole copy of the working file, as large as it is now (free space is read after). */
function publishCopyNeed(source: string): string | undefined {
  try {
    return `a publish copies ${source} whole, ${formatBytes(statSync(source).size)}`;
  } catch {
    return undefined;
  }
}

/** The file an error names: a Node error's own `path`, else the first quoted path of DuckDB's message. */
function pathOf(error: Error): string | undefined {
  const own = (error as NodeJS.ErrnoException).path;
  if (typeof own === 'string') return own;
  return /"(\/[^"]+)"/.exec(error.message)?.[1];
}

/** DuckDB's own words, in one line: of an invalidated instance, the error that invalidated it. */
function firstLine(text: string): string {
  const original = /Original error: "(.*)"\s*$/s.exec(text)?.[1];
  return (original ?? text).split('\n')[0]!.replace(/\.$/, '');
}
