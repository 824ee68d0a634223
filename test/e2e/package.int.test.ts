import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';

/**
 * The package as npm gives it to a user: `npm pack`, installed into an empty folder (no development dependencies, so
 * no tsx and no TypeScript), then `npx bvsync demo` there. Slow (npm installs every dependency, from its cache when it
 * can), so one test does it all.
 */

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '..', '..');
const dir = tempDir('package');
afterAll(() => dir.remove());

describe('the npm package', () => {
  it('packs the compiled code with its licence, installs into an empty folder, and runs the demo there', async () => {
    // dist/ is fresh: test/global-setup.ts built it from these sources. `prepare` would build it again.
    const { stdout: packed } = await run(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir.path],
      { cwd: REPO },
    );
    const [{ filename, files }] = JSON.parse(packed) as [{ filename: string; files: Array<{ path: string }> }];
    const paths = files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'package.json',
        'bin/bvsync.js',
        'dist/bundle/main.js',
        'dist/bundle/fetch-thread.js',
        'dist/bundle/report-charts.js',
        'dist/cli/main.js',
        'dist/index.d.ts',
        'dist/ops/report-charts.js',
        'sql/migrations/001_sync_bookkeeping.sql',
      ]),
    );
    expect(paths.filter((path) => /^(src|test|bench|scripts)\//.test(path) || path === 'bin/run-ts.js')).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ license: 'Apache-2.0', engines: { node: expect.any(String) } });
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.dependencies as object)).not.toContain('tsx');

    const project = join(dir.path, 'project');
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), '{ "name": "uses-bvsync", "private": true }\n');
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir.path, filename)], {
      cwd: project,
      timeout: 600_000,
    });
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);

    const env = { ...process.env, REDIS_URL: TEST_REDIS_URL, BVSYNC_CONFIG: '' };
    const { stdout: version } = await run('npx', ['bvsync', '--version'], { cwd: project, env });
    expect(version.trim()).toBe(manifest.version);
    const demo = await run('npx', ['bvsync', 'demo', '--days', '1', '--brands', '1', '--scale', '5'], {
      cwd: project,
      env,
      timeout: 300_000,
    });
    expect(demo.stdout).toMatch(/run backfill-\S+: complete; [\d,]+ requests to the API, everything read in full/);
    expect(readdirSync(join(project, 'bvsync-demo'))).toContain('bvsync.duckdb');
  }, 900_000);
});
