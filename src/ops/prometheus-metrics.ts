import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DriftEntry } from '../warehouse/schema-drift.js';
import type { ApiRequestEvent } from '../api/index.js';
import { todayBy, DAY_MS, type DayClock } from '../days.js';
import { groupBy } from '../group-by.js';
import { FINISHED_RUN_STATUSES, RUN_KINDS, type SliceStatus } from '../vocabulary.js';
import type { VolumeSpace } from '../warehouse/file/volume-space.js';
import type { FreshnessRow, QueueCounts, SliceOutcomeStatus, SyncMetrics } from './sync-metrics.js';

export interface PrometheusMetricsOptions {
  /** Also export Node's process metrics (CPU, memory, event loop lag) as `bvsync_process_*`; default true. */
  processMetrics?: boolean;
  /** Today, UTC, that freshness ages count from (`BVSYNC_TODAY` through the CLI). */
  today?: DayClock;
}

const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'failed',
  'completed',
  'prioritized',
  'waiting-children',
] as const;

// Slices are a day of one stream: most take well under a second, the conversations of a big brand can take minutes.
const SLICE_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600];
const REQUEST_SECONDS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The Prometheus side of `SyncMetrics`, in its own registry so two hosts in one process (tests) never collide. Queue
 * depths and freshness are read when scraped, from registered sources: only the writer can read `_sync_state`.
 */
export class PrometheusMetrics implements SyncMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'endpoint' | 'status' | 'outcome'>;
  private readonly requestSeconds: Histogram<'endpoint'>;
  private readonly retries: Counter<'endpoint'>;
  private readonly rateLimited: Counter<'endpoint'>;
  private readonly rateLimitedSeconds: Counter;
  private readonly sliceSeconds: Histogram<'stream' | 'status'>;
  private readonly commitSeconds: Histogram<'stream' | 'status'>;
  private readonly loadedRows: Counter<'table'>;
  private readonly rejectedRows: Counter<'stream'>;
  private readonly runsFinished: Counter<'kind' | 'status'>;
  private readonly heldSlices: Counter;
  private readonly healDisagreements: Gauge;
  private readonly healRequests: Counter;
  private readonly lakeWrites: Counter<'outcome'>;
  private readonly reopens: Counter;
  private readonly reopenSeconds: Counter;
  private queueSource: (() => Promise<Record<string, QueueCounts>>) | undefined;
  private writerSource: (() => boolean) | undefined;
  private diskSource: (() => VolumeSpace | undefined) | undefined;
  private freshnessSource: (() => Promise<FreshnessRow[]>) | undefined;
  private schemaDriftSource: (() => Promise<DriftEntry[]>) | undefined;

  constructor(options: PrometheusMetricsOptions = {}) {
    const registers = [this.registry];
    const counter = <L extends string = string>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers });
    const histogram = <L extends string>(name: string, help: string, labelNames: L[], buckets: number[]) =>
      new Histogram<L>({ name, help, labelNames, buckets, registers });
    this.requests = counter(
      'bvsync_api_requests_total',
      'HTTP attempts to the API by endpoint, status and outcome (ok, empty: a 404 the spec calls an empty result, retry, rate_limited, failed, aborted)',
      ['endpoint', 'status', 'outcome'],
    );
    this.requestSeconds = histogram(
      'bvsync_api_request_duration_seconds',
      'Time of one HTTP attempt to the API',
      ['endpoint'],
      REQUEST_SECONDS_BUCKETS,
    );
    this.retries = counter(
      'bvsync_api_retries_total',
      'Attempts that failed and were tried again (5xx, resets, timeouts)',
      ['endpoint'],
    );
    this.rateLimited = counter('bvsync_api_rate_limited_total', '429 answers of the API', ['endpoint']);
    this.rateLimitedSeconds = counter(
      'bvsync_rate_limited_seconds_total',
      'Time the fetch queue was paused by 429s (their Retry-After)',
    );
    this.sliceSeconds = histogram(
      'bvsync_slice_fetch_duration_seconds',
      'Fetch time of one slice by stream and how it ended',
      ['stream', 'status'],
      SLICE_SECONDS_BUCKETS,
    );
    this.commitSeconds = histogram(
      'bvsync_slice_commit_duration_seconds',
      'Time to write one slice into DuckDB (one transaction)',
      ['stream', 'status'],
      SLICE_SECONDS_BUCKETS,
    );
    this.loadedRows = counter('bvsync_rows_loaded_total', 'Rows written into DuckDB by table', ['table']);
    this.rejectedRows = counter(
      'bvsync_rows_rejected_total',
      'Records that failed validation and went to _rejected_records, by stream',
      ['stream'],
    );
    this.runsFinished = counter(
      'bvsync_runs_finished_total',
      'Runs this process finalized as the writer, by kind and status',
      ['kind', 'status'],
    );
    this.heldSlices = counter(
      'bvsync_slices_held_total',
      'Slices a scheduled run left to an unfinished run that was reading them, rather than read twice',
    );
    // Every series at 0 from the start: increase() sees a first failed run only if the series existed before it.
    for (const kind of RUN_KINDS)
      for (const status of FINISHED_RUN_STATUSES) this.runsFinished.inc({ kind, status }, 0);
    this.lakeWrites = counter(
      'bvsync_lake_writes_total',
      'Parquet lake writes after a publish (publish.parquet), by outcome: ok, or failed (the lake is behind)',
      ['outcome'],
    );
    for (const outcome of ['ok', 'failed'] as const) this.lakeWrites.inc({ outcome }, 0);
    this.reopens = counter(
      'bvsync_warehouse_reopens_total',
      'Times the writer reopened DuckDB after a commit to hand back the memory it kept (warehouse.reopenAboveMb)',
    );
    this.reopenSeconds = counter('bvsync_warehouse_reopen_seconds_total', 'Time the writer spent reopening DuckDB');
    this.healDisagreements = new Gauge({
      name: 'bvsync_heal_disagreements',
      help: 'Brand, family and day triples that still disagree with the API after sync.heal re-read them (docs/healing.md)',
      registers,
    });
    this.healRequests = counter(
      'bvsync_heal_requests_total',
      'API requests of sync.heal rounds: comparisons and re-reads',
    );

    const self = this;
    new Gauge({
      name: 'bvsync_queue_jobs',
      help: 'Jobs in each BullMQ queue by state, when scraped',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        if (!self.queueSource) return;
        this.reset();
        for (const [queue, counts] of Object.entries(await self.queueSource())) {
          for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state] ?? 0);
        }
      },
    });
    new Gauge({
      name: 'bvsync_freshness_age_days',
      help: 'Days between today (UTC) and the newest complete day, per brand and stream (only the writer process reports it)',
      labelNames: ['brand', 'stream'],
      registers,
      async collect() {
        if (!self.freshnessSource) return;
        this.reset();
        const today = Date.parse(todayBy(options.today));
        for (const row of await self.freshnessSource()) {
          if (row.newestCompleteDay)
            this.set(
              { brand: String(row.brand), stream: row.stream },
              Math.round((today - Date.parse(row.newestCompleteDay)) / DAY_MS),
            );
        }
      },
    });
    new Gauge({
      name: 'bvsync_schema_drift',
      help: 'What the API sent that the spec does not show, per table and kind (field, enum, engine): v_schema_drift rows with is_new (only the writer process reports it)',
      labelNames: ['table', 'kind'],
      registers,
      async collect() {
        if (!self.schemaDriftSource) return;
        this.reset();
        const fresh = (await self.schemaDriftSource()).filter((entry) => entry.isNew);
        for (const entries of groupBy(fresh, (entry) => `${entry.table}\u0000${entry.kind}`).values()) {
          const { table, kind } = entries[0]!;
          this.set({ table, kind }, entries.length);
        }
      },
    });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'bvsync_process_' });
  }

  request(event: ApiRequestEvent): void {
    const endpoint = endpointTemplate(event.endpoint);
    this.requests.inc({
      endpoint,
      status: event.status === undefined ? 'none' : String(event.status),
      outcome: event.outcome,
    });
    this.requestSeconds.observe({ endpoint }, event.durationMs / 1000);
    if (event.outcome === 'retry') this.retries.inc({ endpoint });
    if (event.outcome === 'rate_limited') this.rateLimited.inc({ endpoint });
  }

  rateLimitedPause(ms: number): void {
    this.rateLimitedSeconds.inc(ms / 1000);
  }

  sliceFetched(stream: string, status: SliceOutcomeStatus, seconds: number): void {
    this.sliceSeconds.observe({ stream, status }, seconds);
  }

  sliceCommitted(stream: string, status: SliceStatus, seconds: number): void {
    this.commitSeconds.observe({ stream, status }, seconds);
  }

  rowsLoaded(table: string, rows: number): void {
    this.loadedRows.inc({ table }, rows);
  }

  rowsRejected(stream: string, rows: number): void {
    if (rows > 0) this.rejectedRows.inc({ stream }, rows);
  }

  runFinished(kind: string, status: string): void {
    this.runsFinished.inc({ kind, status });
  }

  slicesHeld(count: number): void {
    this.heldSlices.inc(count);
  }

  healRound(round: { status: string; persisting: number; requests: number }): void {
    this.healDisagreements.set(round.persisting);
    this.healRequests.inc(round.requests);
  }

  /** The working file's schema drift, read when scraped (the writer's; others report none). */
  setSchemaDriftSource(source: () => Promise<DriftEntry[]>): void {
    this.schemaDriftSource = source;
  }

  warehouseReopened(ms: number): void {
    this.reopens.inc();
    this.reopenSeconds.inc(ms / 1000);
  }

  lakeWritten(outcome: 'ok' | 'failed'): void {
    this.lakeWrites.inc({ outcome });
  }

  /**
   * Whether this process holds the writer lease, read when scraped. Its gauge exists only once a source is set: a
   * one-off command's pushed metrics say nothing of the lease, which the alert "no writer" sums over workers.
   */
  setWriterSource(source: () => boolean): void {
    const self = this;
    this.writerSource = source;
    if (this.registry.getSingleMetric('bvsync_writer_lease_held')) return;
    new Gauge({
      name: 'bvsync_writer_lease_held',
      help: '1 while this process holds the DuckDB writer lease, else 0 (the alert "no writer" sums it over every worker)',
      registers: [this.registry],
      collect() {
        this.set(self.writerSource?.() ? 1 : 0);
      },
    });
  }

  /** The free and total bytes of the working file's volume, read when scraped; by folder, so a process with none reports nothing. */
  setDiskSource(source: () => VolumeSpace | undefined): void {
    const self = this;
    this.diskSource = source;
    if (this.registry.getSingleMetric('bvsync_disk_free_bytes')) return;
    const gauge = (name: string, help: string, pick: (space: VolumeSpace) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['folder'],
        registers: [this.registry],
        collect() {
          const space = self.diskSource?.();
          this.reset();
          if (space) this.set({ folder: space.folder }, pick(space));
        },
      });
    gauge(
      'bvsync_disk_free_bytes',
      'Bytes free to bvsync on the volume of the DuckDB working file (every process that may write reports it)',
      (space) => space.freeBytes,
    );
    gauge('bvsync_disk_size_bytes', 'Size of the volume of the DuckDB working file', (space) => space.sizeBytes);
  }

  /**
   * The end of a one-off command's run, for its push to a Pushgateway: which status it ended with (1 for that status,
   * 0 for the others), when, and its failed slices. The group a push replaces holds the last run of its kind.
   */
  recordRunResult(kind: string, status: string, failedSlices: number, finishedAt: Date): void {
    const gauge = (name: string, help: string, labelNames: string[]) => {
      this.registry.removeSingleMetric(name);
      return new Gauge({ name, help, labelNames, registers: [this.registry] });
    };
    const statusGauge = gauge(
      'bvsync_run_status',
      'The status the last one-off run (sync, backfill) of this kind ended with: 1 for its status',
      ['kind', 'status'],
    );
    for (const each of FINISHED_RUN_STATUSES) statusGauge.set({ kind, status: each }, each === status ? 1 : 0);
    gauge(
      'bvsync_run_finished_timestamp_seconds',
      'When the last one-off run of this kind ended (seconds since the epoch)',
      ['kind'],
    ).set({ kind }, finishedAt.getTime() / 1000);
    gauge('bvsync_run_failed_slices', 'Failed slices of the last one-off run of this kind', ['kind']).set(
      { kind },
      failedSlices,
    );
  }

  /** Where queue depths come from when scraped; `undefined` stops reporting them. */
  setQueueSource(source: (() => Promise<Record<string, QueueCounts>>) | undefined): void {
    this.queueSource = source;
  }

  /** Where freshness comes from when scraped: set while this process holds the writer lease, cleared when it loses it. */
  setFreshnessSource(source: (() => Promise<FreshnessRow[]>) | undefined): void {
    this.freshnessSource = source;
  }

  /** The text exposition format, as served on `/metrics`. */
  async expose(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * `/brands/7/citations/domains/x.com` -> `/brands/{brand_id}/citations/domains/{domain}`: labels name the spec's
 * endpoint, not path values, as a label per brand, domain or statement id would grow the series without bound.
 */
export function endpointTemplate(endpoint: string): string {
  const [method, path = ''] = endpoint.includes(' ') ? (endpoint.split(' ', 2) as [string, string]) : ['', endpoint];
  const segments = path.split('?')[0]!.split('/');
  for (let i = 1; i < segments.length; i += 1) {
    const previous = segments[i - 1];
    if (previous === 'brands') segments[i] = '{brand_id}';
    else if (previous === 'domains' && segments[i - 2] === 'citations') segments[i] = '{domain}';
    else if (previous === 'swot') segments[i] = '{statement_id}';
  }
  const template = segments.join('/');
  return method ? `${method} ${template}` : template;
}
