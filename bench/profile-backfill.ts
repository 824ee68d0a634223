/**
 * Not a scenario: a conversations backfill of `days` days x 10,000 answers in a child process started with
 * `node --cpu-prof`, for finding where bvsync's own time goes. `node bin/run-ts.js bench/profile-backfill.ts [days] [dir]`
 * writes the child's .cpuprofile into `dir` (default /tmp/bvsync-prof; `-`: no profile) and prints its report.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { conversationsSpec, REDIS_URL, REPO, withSimulator, type ChildRunSpec } from './harness.js';

const days = Number(process.argv[2] ?? 20);
const dir = process.argv[3] ?? '/tmp/bvsync-prof';
await withSimulator('bench-profile', { scale: 10_000, days: 100 }, async (context) => {
  const spec: ChildRunSpec = conversationsSpec(context, days, {
    fetchConcurrency: Number(process.env.FETCH_CONCURRENCY) || undefined,
    fetchThreads: process.env.FETCH_THREADS ? Number(process.env.FETCH_THREADS) : undefined,
  });
  const child = spawn(
    process.execPath,
    [
      ...(dir === '-' ? [] : ['--cpu-prof', '--cpu-prof-dir', dir]),
      'bin/run-ts.js',
      'bench/run-child.ts',
      JSON.stringify(spec),
    ],
    {
      cwd: REPO,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        REDIS_URL,
        ...(process.env.CHILD_NODE_OPTIONS ? { NODE_OPTIONS: process.env.CHILD_NODE_OPTIONS } : {}),
      },
    },
  );
  await once(child, 'exit');
});
