import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

const dir = tempDir('simulate-cli');
afterAll(() => dir.remove());

describe('bvsync simulate', () => {
  it('prints its URL, key and brands as JSON, serves with the mapped names, and stops on SIGTERM', async () => {
    const params = join(dir.path, 'params.json');
    writeFileSync(params, JSON.stringify({ page_size: 'per_page', endpoints: { templates: { page_size: 'limit' } } }));
    const child = spawn(
      process.execPath,
      [
        'bin/bvsync.js',
        'simulate',
        '--port',
        '0',
        '--json',
        '--brands',
        '2',
        '--scale',
        '10',
        '--api-key',
        'bvk_cli_test',
        '--today',
        '2026-11-20',
        '--params',
        params,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const facts = JSON.parse(line) as {
        url: string;
        api_key: string;
        brands: number[];
        forbidden_brand: number;
        today: string;
      };
      expect(facts).toMatchObject({ api_key: 'bvk_cli_test', brands: [1, 2], forbidden_brand: 3, today: '2026-11-20' });
      const reply = await fetch(`${facts.url}/customer/v1/brands/2/conversations?per_page=3`, {
        headers: { 'x-api-key': 'bvk_cli_test' },
      });
      expect(reply.status).toBe(200);
      expect(((await reply.json()) as { info: { page_size: number } }).info.page_size).toBe(3);
      // One endpoint's own name, over the file's.
      const templates = await fetch(`${facts.url}/customer/v1/brands/2/templates?limit=2`, {
        headers: { 'x-api-key': 'bvk_cli_test' },
      });
      expect(((await templates.json()) as { info: { page_size: number } }).info.page_size).toBe(2);
      // Answered, so no longer in flight; the admin request asking is not counted.
      expect(((await (await fetch(`${facts.url}/__admin/info`)).json()) as { in_flight: number }).in_flight).toBe(0);
      const knobs = await fetch(`${facts.url}/__admin/knobs`, {
        method: 'POST',
        body: JSON.stringify({ latencyMs: 5 }),
      });
      expect(((await knobs.json()) as { latencyMs: number }).latencyMs).toBe(5);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('stops on SIGTERM at once while a request waits out --latency-ms, instead of after the latency', async () => {
    const LATENCY_MS = 60_000;
    const child = spawn(
      process.execPath,
      ['bin/bvsync.js', 'simulate', '--port', '0', '--json', '--scale', '10', '--latency-ms', String(LATENCY_MS)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = once(child, 'exit');
    let stopped = 0;
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const facts = JSON.parse(line) as { url: string; api_key: string };
      const waiting = fetch(`${facts.url}/customer/v1/brands/1/topics`, {
        headers: { 'x-api-key': facts.api_key },
      }).catch((error: unknown) => error);
      // The request has reached the server and waits out its 60 s.
      await until(
        'the request to reach the simulator',
        async () => {
          const info = (await (await fetch(`${facts.url}/__admin/info`)).json()) as { in_flight: number };
          return info.in_flight === 1;
        },
        10_000,
      );
      stopped = Date.now();
      child.kill('SIGTERM');
      // Cut short: its connection is closed, not answered after the simulator said it stopped.
      expect(await waiting).toBeInstanceOf(Error);
    } finally {
      // A second SIGTERM would meet the default handler and kill it, hiding how it stopped.
      if (!child.killed) child.kill('SIGTERM');
    }
    // Within half the latency: the old sleep kept the process alive for all of it.
    const code = await Promise.race([
      exited.then(([exitCode]) => exitCode as number | null),
      sleep(LATENCY_MS / 2, 'still running'),
    ]);
    if (code === 'still running') child.kill('SIGKILL');
    expect(code).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(LATENCY_MS / 2);
  });

  it('refuses an unknown parameter name in --params', async () => {
    const params = join(dir.path, 'bad.json');
    writeFileSync(params, JSON.stringify({ start: 'from' }));
    const child = spawn(process.execPath, ['bin/bvsync.js', 'simulate', '--port', '0', '--params', params], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toContain('unknown parameter name "start"');

    writeFileSync(params, JSON.stringify({ endpoints: { tracked_urls: { start_date: 'from' } } }));
    const misspelt = spawn(process.execPath, ['bin/bvsync.js', 'simulate', '--port', '0', '--params', params], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    misspelt.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const [misspeltCode] = (await once(misspelt, 'exit')) as [number | null];
    expect(misspeltCode).toBe(2);
    expect(said).toMatch(/unknown endpoint "tracked_urls" in "endpoints"; endpoints: .*tracked-urls/);
  });
});
