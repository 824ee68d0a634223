/**
 * Not a scenario: a conversations backfill of `days` days x 10,000 answers in a child process started with
 * `node --cpu-prof`, for finding where bvsync's own time goes. `node bin/run-ts.js bench/profile-backfill.ts [days] [dir]`
 * writes the child's .cpuprofile into `dir` (default /tmp/bvsync-prof; `-`: no profile) and prints its report.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { deletePrefix, testRedis, uniquePrefix } from '../test/support/redis.js';
import { tempDir } from '../test/support/tmp.js';
import { daysBack, REDIS_URL, REPO, startSimProcess, type ChildRunSpec } from './harness.js';

const days = Number(process.argv[2] ?? 20);
const dir = process.argv[3] ?? '/tmp/bvsync-prof';
const sim = await startSimProcess({ scale: 10_000, days: 100 });
const tmp = tempDir('bench-profile');
const prefix = uniquePrefix('bench-profile');
try {
  const spec: ChildRunSpec = { kind: 'backfill', url: sim.url, apiKey: sim.apiKey, db: join(tmp.path, 'bv.duckdb'), redisPrefix: prefix, streams: ['conversations'], from: daysBack(days - 1), to: daysBack(0), fetchConcurrency: Number(process.env.FETCH_CONCURRENCY) || undefined };
  const child = spawn(process.execPath, [...(dir === '-' ? [] : ['--cpu-prof', '--cpu-prof-dir', dir]), 'bin/run-ts.js', 'bench/run-child.ts', JSON.stringify(spec)], { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, REDIS_URL, ...(process.env.CHILD_NODE_OPTIONS ? { NODE_OPTIONS: process.env.CHILD_NODE_OPTIONS } : {}) } });
  await once(child, 'exit');
} finally {
  await sim.stop();
  const redis = testRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
  tmp.remove();
}
