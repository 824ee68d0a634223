import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { errnoOf, errorMessage } from './format.js';

/** A folder bvsync could not create; the message names the path and the operating system's reason. */
export class FolderError extends Error {
  readonly code = 'folder';
  constructor(
    message: string,
    /** The operating system's error code (ENOENT, ENOTDIR, EACCES, EROFS, ...), when there was one. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'FolderError';
  }
}

/**
 * Creates a folder and its missing parents one level at a time: Node's recursive mkdir loops for ever, deaf to signals,
 * when the kernel refuses a folder with ENOENT (under /proc). `purpose` names the folder in messages.
 */
export function makeFolder(folder: string, purpose: string): void {
  const missing: string[] = [];
  let existing = resolve(folder);
  for (;;) {
    const kind = kindOf(existing, purpose);
    if (kind === 'folder') break;
    if (kind === 'other')
      throw new FolderError(`cannot create ${purpose}: ${existing} is a file, not a folder (ENOTDIR)`, 'ENOTDIR');
    missing.unshift(existing);
    const parent = dirname(existing);
    // The root always exists; this only guards against a path that never reaches it.
    if (parent === existing) break;
    existing = parent;
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'EEXIST' && kindOf(path, purpose) === 'folder') continue; // created by another process meanwhile
      throw new FolderError(`cannot create the folder ${path} for ${purpose}: ${describeErrno(error)}`, code);
    }
  }
}

function kindOf(path: string, purpose: string): 'folder' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch (error) {
    const code = errnoOf(error);
    // ENOTDIR: a part of the path above is a file; the loop reaches it and names it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw new FolderError(`cannot look at ${path}, the folder of ${purpose}: ${describeErrno(error)}`, code);
  }
}

/** `ENOENT (no such file or directory)`: the code to search for and the words to read. */
export function describeErrno(error: unknown): string {
  const code = errnoOf(error);
  const message = errorMessage(error);
  // Node's messages read `ENOENT: no such file or directory, mkdir '/proc/x'`; the path is named by the caller.
  const words = /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1];
  if (code && words) return `${code} (${words})`;
  return code ?? message;
}
