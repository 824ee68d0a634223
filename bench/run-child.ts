/**
 * One backfill or sync, run to its end in this process exactly as `bvsync backfill` / `sync` run it (an in-process
 * worker host through `runToEnd`), then one JSON line on stdout: its duration, what it loaded, its requests and this
 * process's peak RSS. Started by `runInChild` (bench/harness.ts) with a `ChildRunSpec` as its only argument.
 */
import { totalCounters } from '../src/engine/run/run-store.js';
import { runToEnd } from '../src/engine/run/start-run.js';
import { createLogger } from '../src/log.js';
import { openReadOnly } from '../src/warehouse/publish/published-database.js';
import { readRows } from '../src/warehouse/read-rows.js';
import { Warehouse } from '../src/warehouse/warehouse.js';
import type { SyncMetrics } from '../src/ops/sync-metrics.js';
import { REDIS_URL, TODAY, type ChildRunReport, type ChildRunSpec, type WriterReport } from './harness.js';
import { parseConfig } from '../src/configuration.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as ChildRunSpec;
const brands = Array.from({ length: spec.brands ?? 1 }, (_, index) => index + 1);
const config = parseConfig({
  api: { url: spec.url, apiKey: spec.apiKey, requestsPerSecond: spec.requestsPerSecond ?? 10_000 },
  brands,
  db: spec.db,
  redisPrefix: spec.redisPrefix,
  sync: {
    ...(spec.fetchConcurrency ? { fetchConcurrency: spec.fetchConcurrency } : {}),
    ...(spec.fetchThreads === undefined ? {} : { fetchThreads: spec.fetchThreads }),
  },
});
const log = createLogger({ pretty: false });
const abort = new AbortController();
const timer = setTimeout(() => abort.abort(), spec.timeoutMs ?? 600_000);
// Where the resident memory goes (V8 heap vs buffers and native memory such as DuckDB's), sampled while it runs.
const peak = { heapMb: 0, externalMb: 0 };
const sampler = setInterval(() => {
  const usage = process.memoryUsage();
  peak.heapMb = Math.max(peak.heapMb, usage.heapTotal / 2 ** 20);
  peak.externalMb = Math.max(peak.externalMb, (usage.external + usage.arrayBuffers) / 2 ** 20);
}, 100);
const started = performance.now();
const cpuAtStart = process.cpuUsage();
// The time commits had a call open on the warehouse (DuckDB statements and the loader's staging): what grows
// when per-slice bookkeeping grows with the file. The methods of the code before set lookups are wrapped too.
const warehouseCalls: Array<[number, number]> = [];
if (spec.measureWriter) {
  const methods = Warehouse.prototype as unknown as Record<string, unknown>;
  for (const name of ['loadSlices', 'loadSlice', 'commitLookups', 'hasCommitted', 'storedSliceState']) {
    const original = methods[name];
    if (typeof original !== 'function') continue;
    methods[name] = async function (this: unknown, ...args: unknown[]) {
      const from = performance.now();
      try {
        return await (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      } finally {
        warehouseCalls.push([from, performance.now()]);
      }
    };
  }
}
// Every commit's span (prepare to outcome) as the load processor reports it: their union is the writer's busy time.
const commits: Array<[number, number]> = [];
let lastFetch = started;
const writerMetrics: SyncMetrics = {
  request: () => undefined,
  rateLimitedPause: () => undefined,
  sliceFetched: () => void (lastFetch = performance.now()),
  sliceCommitted: (_stream, _status, seconds) =>
    void commits.push([performance.now() - seconds * 1000, performance.now()]),
  rowsLoaded: () => undefined,
  rowsRejected: () => undefined,
  runFinished: () => undefined,
  lakeWritten: () => undefined,
};
const progress = await runToEnd({
  config,
  redisUrl: REDIS_URL,
  log,
  kind: spec.kind,
  brands,
  streams: spec.streams,
  today: TODAY,
  from: spec.from,
  to: spec.to,
  signal: abort.signal,
  ...(spec.measureWriter ? { worker: { metrics: writerMetrics } } : {}),
});
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuAtStart);
clearTimeout(timer);
clearInterval(sampler);
const peakRssMb = process.resourceUsage().maxRSS / 1024;
let records = 0;
if (progress.meta.published) {
  const db = await openReadOnly(progress.meta.published);
  try {
    const [row] = await readRows(
      db.connection,
      'SELECT coalesce(sum("rows"), 0)::BIGINT AS n FROM _sync_state WHERE run_id = $1',
      [progress.meta.runId],
    );
    records = Number(row?.n ?? 0);
  } finally {
    db.close();
  }
}
const { rows, requests, rateLimited, retries } = totalCounters(progress.counters.values());
const report: ChildRunReport = {
  runId: progress.meta.runId,
  status: progress.meta.status,
  seconds,
  records,
  rows,
  planned: progress.planned,
  requests,
  rateLimited,
  retries,
  peakRssMb,
  peakHeapMb: peak.heapMb,
  peakExternalMb: peak.externalMb,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  ...(spec.measureWriter ? { writer: writerReport() } : {}),
};

/** How long at least one of the spans was open (ms): calls queued on the warehouse's one connection overlap. */
function unionMs(spans: Array<[number, number]>): number {
  let total = 0;
  let reach = -Infinity;
  for (const [from, to] of spans.sort((a, b) => a[0] - b[0])) {
    if (to <= reach) continue;
    total += to - Math.max(from, reach);
    reach = to;
  }
  return total;
}

function writerReport(): WriterReport {
  const lastCommit = commits.reduce((last, [, to]) => Math.max(last, to), started);
  return {
    busySeconds: unionMs(commits) / 1000,
    warehouseSeconds: unionMs(warehouseCalls) / 1000,
    slicesCommitted: commits.length,
    lastFetchSeconds: (lastFetch - started) / 1000,
    lastCommitSeconds: (lastCommit - started) / 1000,
  };
}
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
