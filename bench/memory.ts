/**
 * Scenario 4, memory: the peak RSS of the process doing a conversations backfill of 1,000,000 records (100 days x
 * 10,000, the run of scenario 1, shared when both run in one bench) and of one of 100,000 (10 days x 10,000), each in
 * a fresh child process (`process.resourceUsage().maxRSS` at its end). Targets: <= 400 MB, and the larger within
 * 1.2 x the smaller — memory must not grow with volume. Measured with node's defaults (the targets) and again with
 * the old space capped (`NODE_OPTIONS=--max-old-space-size=128`): the live heap is small, and V8 otherwise lets
 * garbage grow the heap to ~200 MB at this allocation rate. The notes give each run's peak V8 heap.
 */
import { conversationBackfill, type BackfillFigure } from './throughput.js';
import type { BenchResult } from './run.js';

const LIMIT_MB = 400;
const CAPPED = '--max-old-space-size=128';

function figures(label: string, small: BackfillFigure, large: BackfillFigure): BenchResult[] {
  const note = (figure: BackfillFigure) =>
    `${figure.records.toLocaleString('en-US')} records in ${figure.seconds.toFixed(1)} s; V8 heap peak ${Math.round(figure.report.peakHeapMb)} MB`;
  const growth = large.peakRssMb / small.peakRssMb;
  return [
    { scenario: 'memory', metric: `peak RSS, 1,000,000 conversations${label}`, value: large.peakRssMb, unit: 'MB', reference: LIMIT_MB, target: `<= ${LIMIT_MB} MB`, met: large.peakRssMb <= LIMIT_MB, note: note(large) },
    { scenario: 'memory', metric: `peak RSS, 100,000 conversations${label}`, value: small.peakRssMb, unit: 'MB', reference: LIMIT_MB, target: `<= ${LIMIT_MB} MB`, met: small.peakRssMb <= LIMIT_MB, note: note(small) },
    { scenario: 'memory', metric: `peak RSS growth, 1,000,000 vs 100,000${label}`, value: large.peakRssMb, unit: 'MB', reference: small.peakRssMb, target: '<= 1.2 x smaller', met: growth <= 1.2, note: `${growth.toFixed(2)} x` },
  ];
}

export async function run(): Promise<BenchResult[]> {
  const small = await conversationBackfill(10);
  const large = await conversationBackfill(100);
  const smallCapped = await conversationBackfill(10, CAPPED);
  const largeCapped = await conversationBackfill(100, CAPPED);
  return [...figures('', small, large), ...figures(` (NODE_OPTIONS=${CAPPED})`, smallCapped, largeCapped)];
}
