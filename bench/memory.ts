/**
 * Scenario 4, memory: the peak RSS of the process doing a conversations backfill of 1,000,000 records (100 days x
 * 10,000, the run of scenario 1, shared when both run in one bench) and of one of 100,000 (10 days x 10,000), each in
 * a fresh child process (`process.resourceUsage().maxRSS` at its end). Targets: <= 400 MB, and the larger within
 * 1.2 x the smaller — memory must not grow with volume.
 */
import { conversationBackfill } from './throughput.js';
import type { BenchResult } from './run.js';

const LIMIT_MB = 400;

export async function run(): Promise<BenchResult[]> {
  const small = await conversationBackfill(10);
  const large = await conversationBackfill(100);
  const growth = large.peakRssMb / small.peakRssMb;
  return [
    {
      scenario: 'memory',
      metric: 'peak RSS, backfill of 1,000,000 conversations',
      value: large.peakRssMb,
      unit: 'MB',
      reference: LIMIT_MB,
      target: `<= ${LIMIT_MB} MB`,
      met: large.peakRssMb <= LIMIT_MB,
      note: `${large.records.toLocaleString('en-US')} records in ${large.seconds.toFixed(1)} s`,
    },
    {
      scenario: 'memory',
      metric: 'peak RSS, backfill of 100,000 conversations',
      value: small.peakRssMb,
      unit: 'MB',
      reference: LIMIT_MB,
      target: `<= ${LIMIT_MB} MB`,
      met: small.peakRssMb <= LIMIT_MB,
      note: `${small.records.toLocaleString('en-US')} records in ${small.seconds.toFixed(1)} s`,
    },
    {
      scenario: 'memory',
      metric: 'peak RSS growth, 1,000,000 vs 100,000 conversations',
      value: large.peakRssMb,
      unit: 'MB',
      reference: small.peakRssMb,
      target: '<= 1.2 x smaller',
      met: growth <= 1.2,
      note: `${growth.toFixed(2)} x`,
    },
  ];
}
