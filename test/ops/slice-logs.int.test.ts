import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import {
  cliEnv,
  engineFixture,
  spawnBvsync,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';
import { backfillWithRunningWorkers } from './host-run.js';

/**
 * `bvsync worker` as an operator runs it under a process manager (stderr not a terminal): its log is pino JSON, one
 * object a line, and every line about a slice — the fetch job's, the API client's retries and 429s, the commit's —
 * names the run, brand, stream and slice, so `jq 'select(.slice == "2026-11-19")'` finds a slice's whole story.
 */

// Messages logged while a slice is worked on; each must carry the slice's fields.
const SLICE_MESSAGES = [
  'transient API failure; retrying',
  'rate limited: the key is slowed',
  'rate limited: pausing the fetch queue',
  'slice incomplete',
  'slice failed; it will be tried again',
  'slice failed',
  'slice committed',
];

let fx: EngineFixture;
let run: RunProgress;
let result: CliResult;
let lines: Array<Record<string, unknown>>;

beforeAll(async () => {
  fx = await engineFixture('slice-logs');
  fx.sim.setKnobs({ faultRate: 0.15, faultKinds: ['5xx'], rateLimit: 10, retryAfterSeconds: 1 });
  const worker = spawnBvsync(
    ['worker', '--config', writeCliConfig(fx), '--log-level', 'debug', '--concurrency', '4'],
    cliEnv(fx),
  );
  await worker.waitFor(/worker started/);
  run = await backfillWithRunningWorkers(fx, {
    streams: ['conversations', 'competitors'],
    from: '2026-11-18',
    to: '2026-11-20',
  });
  worker.kill('SIGTERM');
  result = await worker.done;
  lines = result.stderr
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
});
afterAll(async () => fx?.cleanup());

describe("the worker's log lines", () => {
  it('are JSON objects with a level, a time and a message, and the worker stops cleanly', () => {
    expect(run.meta.status).toBe('complete');
    expect(result.code).toBe(0);
    expect(lines.length).toBeGreaterThan(run.planned);
    for (const line of lines) {
      expect(typeof line.level).toBe('number');
      expect(typeof line.time).toBe('number');
      expect(typeof line.msg).toBe('string');
    }
  });

  it('name the run, brand, stream and slice on every line about a slice, each field once', () => {
    const sliceLines = lines.filter((line) => SLICE_MESSAGES.includes(String(line.msg)));
    const retries = sliceLines.filter((line) => line.msg === 'transient API failure; retrying');
    expect(retries.length).toBeGreaterThan(0);
    expect(sliceLines.filter((line) => line.msg === 'slice committed')).toHaveLength(run.planned);
    for (const line of sliceLines) {
      expect(line).toMatchObject({
        run: run.meta.runId,
        brand: expect.any(Number),
        stream: expect.stringMatching(/^(conversations|competitors)$/),
        slice: expect.any(String),
      });
      expect(fx.config.brands).toContain(line.brand);
    }
    const committedSlices = new Set(
      sliceLines
        .filter((line) => line.msg === 'slice committed')
        .map((line) => `${line.brand}|${line.stream}|${line.slice}`),
    );
    expect(committedSlices.size).toBe(run.planned);
    for (const raw of result.stderr.split('\n').filter((line) => line.includes('"slice":')))
      expect(raw.match(/"slice":/g)).toHaveLength(1);
  });

  it('never print the API key', () => {
    expect(result.stderr).not.toContain(fx.sim.apiKey);
  });

  it('follow --log-level: debug lines only when asked', () => {
    expect(lines.some((line) => line.level === 20)).toBe(true);
  });
});
