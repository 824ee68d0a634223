import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { TEST_REDIS_URL } from './redis.js';

const BIN = resolve(import.meta.dirname, '../../bin/bvsync.js');

/**
 * Runs `bvsync doctor` as a user would against `sim` for brand 1, with a config file of `api` settings (written to
 * `dir` as `name.json`), for the week before `today` when given; its output is stdout and stderr together. The simulator keeps serving: this does not block.
 */
export function runDoctor(
  sim: RunningSimulator,
  dir: string,
  name: string,
  api: Record<string, unknown>,
  today?: string,
): Promise<{ code: number | null; out: string }> {
  const config = join(dir, `${name}.json`);
  writeFileSync(config, JSON.stringify({ api: { requestsPerSecond: 1000, ...api } }));
  return spawnDoctor(sim, ['--config', config, ...(today ? ['--today', today] : [])], dir);
}

/** `bvsync doctor` with `args` in `cwd`, against `sim` for brand 1, on its today (BVSYNC_TODAY); stdout and stderr together. */
export function spawnDoctor(
  sim: RunningSimulator,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'doctor', ...args], {
      cwd,
      env: {
        PATH: process.env.PATH,
        REDIS_URL: TEST_REDIS_URL,
        BVSYNC_LOG_LEVEL: 'silent',
        BVSYNC_API_URL: sim.url,
        BVSYNC_API_KEY: sim.apiKey,
        BVSYNC_BRANDS: '1',
        BVSYNC_TODAY: sim.truth.today(),
      },
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out }));
  });
}
