import { createHash } from 'node:crypto';

/**
 * BullMQ job ids deduplicate only while the job exists, must not contain `:` and must not be all digits. An id
 * is derived from what the job is (run, brand, stream, slice), so planning the same run twice adds nothing.
 * Slice keys may hold any characters a domain or phrase can (from the API or the config); they are hashed into the
 * id rather than trusted, and the readable part is kept to safe characters.
 */
export function jobId(kind: string, ...parts: Array<string | number>): string {
  const readable = parts.map((part) => String(part).replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40)).join('.');
  const digest = createHash('sha256').update(JSON.stringify([kind, ...parts.map(String)])).digest('hex').slice(0, 12);
  return `${kind}.${readable}.${digest}`;
}
