import type { WorkerHost } from '../engine/jobs/worker-host.js';
import { startMetricsServer, type MetricsServerOptions, type RunningMetricsServer } from './metrics-server.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';
import { volumeSpace } from '../warehouse/file/volume-space.js';
import { workingPathFor } from '../warehouse/paths.js';

export interface HostMetricsOptions extends Pick<MetricsServerOptions, 'port' | 'host' | 'log'> {
  /** The published file (config `db`), whose working file's volume the disk gauges watch; undefined for a fetch-only worker. */
  db?: string;
}

/**
 * Serves a worker host's metrics: the counters it feeds as it works, plus its queues' depths and (while it holds the
 * writer lease) freshness, read when scraped; and its probes, `/healthz` and `/readyz` (src/engine/jobs/readiness.ts).
 */
export function serveHostMetrics(
  host: WorkerHost,
  metrics: PrometheusMetrics,
  options: HostMetricsOptions,
): Promise<RunningMetricsServer> {
  watchHost(host, metrics, options.db);
  return startMetricsServer({ ...options, metrics, readiness: () => host.readiness() });
}

/**
 * Points the metrics read when scraped (or pushed) at a host: its queues, and while it holds the writer lease the
 * freshness. Every process but a `--fetch-only` one reports the disk, so a full one is seen before a writer fails on it.
 */
export function watchHost(host: WorkerHost, metrics: PrometheusMetrics, db: string | undefined): void {
  metrics.setQueueSource(() => host.queueCounts());
  metrics.setFreshnessSource(() => host.freshness());
  metrics.setSchemaDriftSource(() => host.schemaDrift());
  metrics.setWriterSource(() => host.isWriter);
  if (db !== undefined) metrics.setDiskSource(() => volumeSpace(workingPathFor(db)));
}
