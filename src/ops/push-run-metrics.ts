import { Pushgateway } from 'prom-client';
import type { Logger } from '../log.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';

/**
 * The job name of every push; the group is one per warehouse (`prefix`) and command (`command`: sync or backfill). Not
 * `kind`: a grouping label overrides the pushed series' own, and the runs counter is labelled by kind.
 */
const PUSH_JOB = 'bvsync';

/** The longest a push may take: a Pushgateway that does not answer must not hold a command that is done. */
const PUSH_TIMEOUT_MS = 10_000;

export interface PushRunMetricsOptions {
  /** The Pushgateway's base URL (config `metrics.pushgateway`). */
  url: string;
  metrics: PrometheusMetrics;
  /** Grouping labels: the config's `redisPrefix`, and the run's kind as `command`. */
  prefix: string;
  kind: string;
  log: Logger;
}

/**
 * Pushes a one-off command's metrics at its end, replacing its group's (PUT), so the gateway holds each kind's last
 * run. A push that fails is logged and changes nothing else: the run is over and its exit code stands.
 */
export async function pushRunMetrics(options: PushRunMetricsOptions): Promise<void> {
  const gateway = new Pushgateway(options.url, { timeout: PUSH_TIMEOUT_MS }, options.metrics.registry);
  try {
    await gateway.push({ jobName: PUSH_JOB, groupings: { prefix: options.prefix, command: options.kind } });
    options.log.info({ kind: options.kind }, "pushed the run's metrics to the Pushgateway");
  } catch (error) {
    options.log.warn(
      { err: (error as Error).message },
      "could not push the run's metrics to the Pushgateway (metrics.pushgateway); the run is not affected",
    );
  }
}
