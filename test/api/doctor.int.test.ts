import { afterAll, beforeAll, describe, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';

const BIN = resolve(import.meta.dirname, '../../bin/bvsync.js');
const OTHER_NAMES = { start_date: 'from', end_date: 'to', page_size: 'limit', period: 'granularity', ownership: 'owner' };

let plain: RunningSimulator;
let renamed: RunningSimulator;
const dir = tempDir('doctor');

beforeAll(async () => {
  [plain, renamed] = await Promise.all([
    startSimulator({ seed: 3, brands: 2, days: 12, scale: 30 }),
    startSimulator({ seed: 3, brands: 1, days: 12, scale: 30, params: OTHER_NAMES }),
  ]);
});

afterAll(async () => {
  await Promise.all([plain.close(), renamed.close()]);
  dir.remove();
});

/** Runs `bvsync doctor` as a user would; the simulators keep serving because this does not block. */
function doctor(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'doctor'], {
      cwd: dir.path,
      env: { PATH: process.env.PATH, REDIS_URL: TEST_REDIS_URL, BVSYNC_LOG_LEVEL: 'silent', ...env },
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out }));
  });
}

// Each run starts a process (about a second of tsx start-up), so the runs go side by side.
describe.concurrent('bvsync doctor', () => {
  it('passes every check against a simulator with the default names', async ({ expect }) => {
    const { code, out } = await doctor({ BVSYNC_API_URL: plain.url, BVSYNC_API_KEY: plain.apiKey, BVSYNC_BRANDS: plain.brands.join(',') });
    expect(out).not.toContain('FAIL');
    expect(out).toMatch(/^ok {4}redis: /m);
    expect(out).toMatch(/^ok {4}brand 2: readable/m);
    expect(out).toMatch(/^ok {4}parameter mapping \(citations report\): .*period/m);
    expect(code).toBe(0);
  });

  it('fails on a brand the key cannot read, naming it', async ({ expect }) => {
    const { code, out } = await doctor({ BVSYNC_API_URL: plain.url, BVSYNC_API_KEY: plain.apiKey, BVSYNC_BRANDS: `1,${plain.forbiddenBrand}` });
    expect(out).toMatch(new RegExp(`^FAIL  brand ${plain.forbiddenBrand}: .*brand_access_denied`, 'm'));
    expect(code).toBe(1);
  });

  it('flags the parameter mapping when the API uses other names, and never prints the key', async ({ expect }) => {
    const key = renamed.apiKey;
    const { code, out } = await doctor({ BVSYNC_API_URL: renamed.url, BVSYNC_API_KEY: key, BVSYNC_BRANDS: '1' });
    expect(out).toMatch(/^ok {4}brand 1: readable/m);
    expect(out).toMatch(/^FAIL  parameter mapping: .*page_size/m);
    expect(out).toMatch(/^FAIL  parameter mapping \(visibility report\): .*"start_date"/m);
    expect(out).toMatch(/^FAIL  parameter mapping \(citations report\): .*"period"/m);
    expect(out).not.toContain(key);
    expect(code).toBe(1);
  });

  it('passes against the same API once the config maps the names', async ({ expect }) => {
    const config = join(dir.path, 'mapped.json');
    writeFileSync(config, JSON.stringify({ api: { params: OTHER_NAMES } }));
    const { code, out } = await doctor({ BVSYNC_CONFIG: config, BVSYNC_API_URL: renamed.url, BVSYNC_API_KEY: renamed.apiKey, BVSYNC_BRANDS: '1' });
    expect(out).not.toContain('FAIL');
    expect(out).toContain('page_size as "limit"');
    expect(code).toBe(0);
  });

  it('fails clearly on a wrong key and a missing config value', async ({ expect }) => {
    const wrong = await doctor({ BVSYNC_API_URL: plain.url, BVSYNC_API_KEY: 'bvk_wrong_key_123', BVSYNC_BRANDS: '1' });
    expect(wrong.out).toMatch(/^FAIL  api: the key is refused/m);
    expect(wrong.code).toBe(1);
    const missing = await doctor({ BVSYNC_API_URL: plain.url, BVSYNC_BRANDS: '1' });
    expect(missing.out).toMatch(/^FAIL  config: missing api\.apiKey/m);
    expect(missing.code).toBe(1);
  });
});
