import type { Logger } from '../log.js';
import type { PublishResult } from '../warehouse/publish.js';

/** Says where a publish moved the published file's own write-ahead log (publish.ts, setAsideWal), when it had one. */
export function warnOfStaleWal(log: Logger, published: PublishResult): void {
  if (!published.staleWal) return;
  log.warn(
    { published: published.path, movedTo: published.staleWal },
    'the published file had a write-ahead log of its own (it was opened read-write and written to): moved aside, so the new copy opens clean; open the published file read-only',
  );
}
