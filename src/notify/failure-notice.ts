import type { KeyRefusedNotice, MachineFaultNotice } from './notice.js';
import { errnoOf, errorMessage } from '../format.js';

/** Error codes of a machine fault, by the part of the machine that failed. The disk's come with its own classification. */
const MACHINE_FAULT_CODES: Record<string, string> = {
  redis_unavailable: 'redis',
  redis_full: 'redis',
  ENOSPC: 'disk',
  EDQUOT: 'disk',
  EIO: 'disk',
  EROFS: 'disk',
  disk_full: 'disk',
  database_invalidated: 'database',
};

/** Codes of the API refusing the key itself (src/api/errors.ts: AuthError). */
const KEY_REFUSED_CODES = new Set(['unauthorized']);

/** A machine fault to tell people of: the one entry point for every part that finds one (Redis, the disk). */
export function machineFault(component: string, code: string, message: string): MachineFaultNotice {
  return { event: 'machine_fault', component, code, message };
}

/**
 * The notice a command's failure deserves, from the error's fixed `code` (docs/architecture.md: every error class has
 * one); undefined for failures that are a command line's or a config's, which the person at the terminal sees.
 */
export function noticeOfFailure(error: unknown): KeyRefusedNotice | MachineFaultNotice | undefined {
  const message = errorMessage(error);
  // The error a command reports may wrap the one that names the fault (a refused key in the preflight's message).
  for (let each = error, depth = 0; each && depth < 4; each = (each as { cause?: unknown }).cause, depth += 1) {
    const code = errnoOf(each);
    if (code === undefined) continue;
    if (KEY_REFUSED_CODES.has(code)) return { event: 'key_refused', code, message };
    const component = MACHINE_FAULT_CODES[code];
    if (component) return machineFault(component, code, message);
  }
  return undefined;
}
