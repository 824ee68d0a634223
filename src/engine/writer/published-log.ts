import type { Logger } from '../../log.js';
import type { SyncMetrics } from '../../ops/sync-metrics.js';
import type { PublishResult } from '../../warehouse/publish/publish.js';

/** What every publish logs beyond its own line: a write-ahead log moved aside, and the Parquet lake's write. */
export function reportPublished(log: Logger, published: PublishResult, metrics?: SyncMetrics): void {
  // Where the publish moved the published file's own write-ahead log (publish.ts, setAsideWal), when it had one.
  if (published.staleWal)
    log.warn(
      { published: published.path, movedTo: published.staleWal },
      'the published file had a write-ahead log of its own (it was opened read-write and written to): moved aside, so the new copy opens clean; open the published file read-only',
    );
  // The lake's write after the publish (parquet-lake.ts): what it wrote, or why it is behind the published file.
  const lake = published.lake;
  if (!lake) return;
  if (!lake.ok)
    log.warn(
      { lake: lake.path, published: published.path, err: lake.error },
      'the Parquet lake could not be written: the published file is current, the lake stays at its last manifest until a later publish writes it (bvsync status says so; docs/lake.md)',
    );
  else
    log.info(
      {
        lake: lake.path,
        mode: lake.mode,
        reason: lake.fullReason,
        partitions: lake.partitionsWritten,
        removed: lake.partitionsRemoved,
        rows: lake.rowsWritten,
        seconds: Math.round(lake.ms) / 1000,
      },
      'Parquet lake written',
    );
  metrics?.lakeWritten(lake.ok ? 'ok' : 'failed');
}
