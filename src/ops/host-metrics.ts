import type { WorkerHost } from '../engine/worker-host.js';
import type { Logger } from '../log.js';
import { startMetricsServer, type RunningMetricsServer } from './metrics-server.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';

export interface HostMetricsOptions {
  /** Port of `/metrics`; 0 picks a free one. */
  port: number;
  /** Interface to listen on; default `0.0.0.0`. */
  host?: string;
  log?: Logger;
}

/**
 * Serves a worker host's metrics: the counters it feeds as it works, plus its queues' depths and (while it holds the
 * writer lease) freshness, read when scraped; and its probes, `/healthz` and `/readyz` (src/engine/readiness.ts).
 */
export function serveHostMetrics(host: WorkerHost, metrics: PrometheusMetrics, options: HostMetricsOptions): Promise<RunningMetricsServer> {
  metrics.setQueueSource(() => host.queueCounts());
  metrics.setFreshnessSource(() => host.freshness());
  return startMetricsServer({ metrics, port: options.port, host: options.host, log: options.log, readiness: () => host.readiness() });
}
