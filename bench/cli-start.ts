/**
 * `cli-start`: how long `bvsync --version` and `bvsync status --json` take from the command to the exit, against
 * `node -e 0` (node's own start) measured in the same run, interleaved so each sees the same load. The compiled bin
 * is measured, as a user runs it (built first when stale). Target: `--version` within 0.3 s of node's start.
 * `npm run bench -- cli-start`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDistIfStale } from './harness.js';
import type { BenchResult } from './run.js';

const REPO = join(import.meta.dirname, '..');
const ROUNDS = 7;
const TARGET_GAP_S = 0.3;

function seconds(args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  return (performance.now() - started) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function run(): Promise<BenchResult[]> {
  buildDistIfStale();
  const dir = mkdtempSync(join(tmpdir(), 'bvsync-cli-start-'));
  const env = {
    ...process.env,
    BVSYNC_CONFIG: '',
    BVSYNC_DB: join(dir, 'bv.duckdb'),
    BVSYNC_REDIS_PREFIX: `bench-cli-start-${process.pid}`,
  };
  const bin = join(REPO, 'bin', 'bvsync.js');
  const times = { node: [] as number[], version: [] as number[], status: [] as number[] };
  try {
    // One of each first, unmeasured: the file cache.
    seconds(['-e', '0'], env);
    seconds([bin, '--version'], env);
    seconds([bin, 'status', '--json'], env);
    for (let round = 0; round < ROUNDS; round++) {
      times.node.push(seconds(['-e', '0'], env));
      times.version.push(seconds([bin, '--version'], env));
      times.status.push(seconds([bin, 'status', '--json'], env));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const node = median(times.node);
  const version = median(times.version);
  const status = median(times.status);
  return [
    { scenario: 'cli-start', metric: 'node -e 0 (median)', value: node, unit: 's' },
    {
      scenario: 'cli-start',
      metric: 'bvsync --version (median)',
      value: version,
      unit: 's',
      reference: node,
      target: `<= reference + ${TARGET_GAP_S} s`,
      met: version <= node + TARGET_GAP_S,
      note: `${ROUNDS} rounds`,
    },
    {
      scenario: 'cli-start',
      metric: 'bvsync status --json (median)',
      value: status,
      unit: 's',
      reference: node,
      note: 'reads Redis; no target',
    },
  ];
}
