import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHash } from '../../src/api/rate/rate-budget.js';
import { freePort } from '../../src/engine/redis/redis.js';
import { redisKeys } from '../../src/redis-keys.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runBvsync, runOnFile, spawnBvsync, type CliResult } from '../support/engine.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';
import { until } from '../support/until.js';

/**
 * `bvsync plan` and `bvsync apply` as an operator runs them, against the simulator: what they print, how they exit,
 * and what the simulator's request log says was written (`written` of every POST and PATCH).
 */

const REPO = join(import.meta.dirname, '..', '..');
const EXAMPLE = join(REPO, 'examples', 'brand-1.yaml');

let sim: RunningSimulator;
let dir: ReturnType<typeof tempDir>;
let config: string;
// plan and apply take their requests from the rate budget the workers share in Redis, under this prefix.
const prefix = uniquePrefix('manage');

beforeAll(async () => {
  sim = await startSimulator({ today: '2026-11-20', days: 3, scale: 20 });
  dir = tempDir('manage');
  config = join(dir.path, 'bvsync.config.json');
  writeFileSync(
    config,
    JSON.stringify({ redisUrl: TEST_REDIS_URL, redisPrefix: prefix, api: { requestsPerSecond: 200 } }),
  );
});
afterAll(async () => {
  await sim?.close();
  dir?.remove();
  const redis = testRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    BVSYNC_API_URL: sim.url,
    BVSYNC_API_KEY: sim.apiKey,
    BVSYNC_CONFIG: config,
    BVSYNC_DB: join(dir.path, 'absent.duckdb'),
    BVSYNC_LOG_LEVEL: 'warn',
  };
}

function bvsync(...args: string[]): Promise<CliResult> {
  return runBvsync(args, env());
}

/**
 * The writes since the log was cleared, once the simulator has answered every request: one sent just before a stopped
 * apply's end still waits out its latency there, and is written when the wait ends, whoever has gone.
 */
async function answeredWrites(): Promise<number> {
  await until('the simulator to answer every request in flight', async () => {
    const info = (await (await fetch(`${sim.url}/__admin/info`)).json()) as { in_flight: number };
    return info.in_flight === 0;
  });
  return writtenSinceClear().total;
}

/** Items written since the log was last cleared, per write endpoint (dry runs and replays write 0). */
function writtenSinceClear(): { total: number; byPath: Record<string, number> } {
  const byPath: Record<string, number> = {};
  let total = 0;
  for (const entry of sim.requestLog()) {
    if (entry.method === 'GET') continue;
    byPath[`${entry.method} ${entry.path}`] = (byPath[`${entry.method} ${entry.path}`] ?? 0) + (entry.written ?? 0);
    total += entry.written ?? 0;
  }
  return { total, byPath };
}

interface Item {
  kind: string;
  label: string;
  action: string;
  code?: string;
  detail?: string;
  id?: number;
}

function items(result: CliResult): Item[] {
  return (JSON.parse(result.stdout) as { items: Item[] }).items;
}

function writeFile(name: string, content: unknown): string {
  const path = join(dir.path, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

async function trackedUrlsOf(brand: number): Promise<string[]> {
  const urls: string[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${sim.url}/customer/v1/brands/${brand}/tracked-urls?page=${page}&page_size=100`, {
      headers: { 'x-api-key': sim.apiKey },
    });
    const body = (await response.json()) as { data: Array<{ url: string }> };
    urls.push(...body.data.map((row) => row.url));
    if (body.data.length < 100) return urls;
  }
}

describe('the example of brand 1', () => {
  it('plan lists what apply would do and writes nothing', async () => {
    sim.clearRequestLog();
    const result = await bvsync('plan', EXAMPLE);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^plan of brand 1 from .*brand-1\.yaml: 5 to create, 0 to change, 1 to restore, 0 rejected, 0 unchanged \(nothing written\)/,
    );
    expect(result.stdout).toMatch(
      /create +tracked URL +https:\/\/silverpeak\.com\/guides\/quiet-dehumidifiers: title "Quiet dehumidifiers for bedrooms", group 100053/,
    );
    expect(result.stdout).toMatch(
      /create +competitor +cedarwave: tracks the platform's suggestion Cedarwave \(id 100048\)/,
    );
    expect(result.stdout).toMatch(/restore +topic +Energy saving \(prompter, english\): deleted topic 100036/);
    expect(writtenSinceClear().total).toBe(0);
    // The dry runs were sent: the API, not bvsync, judged each create.
    expect(sim.requestLog().filter((entry) => entry.method === 'POST').length).toBeGreaterThanOrEqual(3);
  });

  it('apply writes each item, reports it with its id, and keeps the key out of its output', async () => {
    // The next moment the key may send, kept by the budget the workers share: gone now, there after the apply.
    const nextSend = redisKeys(prefix).rateNext(keyHash(sim.apiKey));
    const redis = testRedis();
    await redis.del(nextSend);
    redis.disconnect();
    sim.clearRequestLog();
    const result = await bvsync('apply', EXAMPLE);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/applied to brand 1: 5 created, 0 changed, 1 restored, 0 rejected, 0 unchanged$/m);
    expect(result.stdout).toMatch(
      /created +tracked URL +https:\/\/silverpeak\.com\/products\/air-purifier-mini\/ \(id \d+\)/,
    );
    expect(result.stdout + result.stderr).not.toContain(sim.apiKey);
    const written = writtenSinceClear();
    expect(written.byPath['POST /customer/v1/brands/1/tracked-urls']).toBe(2);
    expect(written.byPath['POST /customer/v1/brands/1/topics']).toBe(1);
    expect(written.byPath['POST /customer/v1/brands/1/topics/100036/restore']).toBe(1);
    expect(written.byPath['POST /customer/v1/brands/1/competitors']).toBe(2);
    const after = testRedis();
    expect(await after.exists(nextSend)).toBe(1);
    // The key itself is stored only as a hash.
    expect(JSON.stringify(await after.keys(`${prefix}:*`))).not.toContain(sim.apiKey);
    after.disconnect();
    // Tracked in the spec's normal form: without the trailing slash the file wrote.
    expect(await trackedUrlsOf(1)).toContain('https://silverpeak.com/products/air-purifier-mini');
  });

  it('a second apply writes nothing and says every item is unchanged', async () => {
    sim.clearRequestLog();
    const result = await bvsync('apply', EXAMPLE, '--json');
    expect(result.code).toBe(0);
    const outcome = items(result);
    expect(outcome).toHaveLength(6);
    expect(outcome.every((item) => item.action === 'unchanged')).toBe(true);
    expect(writtenSinceClear().total).toBe(0);
  });
});

describe('changes to pages the brand tracks', () => {
  it('a new title and no group are a change, sent as a PATCH; then the page is unchanged', async () => {
    const path = writeFile(
      'brand-1-change.yaml',
      [
        'brand: 1',
        'trackedUrls:',
        '  - url: https://silverpeak.com/guides/quiet-dehumidifiers/',
        '    title: The quietest dehumidifiers',
        '    group: null',
      ].join('\n'),
    );
    const planned = await bvsync('plan', path);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toMatch(
      /change +tracked URL +https:\/\/silverpeak\.com\/guides\/quiet-dehumidifiers\/: title "Quiet dehumidifiers for bedrooms" -> "The quietest dehumidifiers", group 100053 -> none/,
    );
    sim.clearRequestLog();
    const applied = await bvsync('apply', path, '--json');
    expect(applied.code).toBe(0);
    expect(items(applied).map((item) => item.action)).toEqual(['changed']);
    expect(
      sim
        .requestLog()
        .filter((entry) => entry.method === 'PATCH')
        .map((entry) => entry.written),
    ).toEqual([1]);
    const again = await bvsync('plan', path, '--json');
    expect(items(again).map((item) => item.action)).toEqual(['unchanged']);
  });
});

describe('rejections of brand 2', () => {
  // Brand 2 runs 6 topics and the simulator's plan holds 12: of 8 new topics, the last 2 do not fit.
  const newTopics = Array.from({ length: 8 }, (_, n) => ({
    name: `Topic ${n + 1}`,
    scenarios: [`Question ${n + 1}?`],
  }));
  const file = () =>
    writeFile('brand-2.json', {
      brand: 2,
      trackedUrls: [{ url: 'https://example.com/brand-2/a', title: 'A' }],
      topics: [...newTopics, { name: 'Persona that is not', persona: 999 }],
      competitors: [{ name: 'Zephyrline', website: 'zephyrline.com' }],
    });

  it('a file repeating an entry is refused before any request, each repeat named (exit 2)', async () => {
    sim.clearRequestLog();
    const path = writeFile('brand-2-repeats.json', {
      brand: 2,
      trackedUrls: [
        { url: 'https://example.com/brand-2/a', title: 'A' },
        { url: 'https://example.com/brand-2/a/', title: 'A again' },
      ],
      competitors: [
        { name: 'Zephyrline', website: 'zephyrline.com' },
        { name: 'ZEPHYRLINE', website: 'zephyrline.com' },
      ],
    });
    const result = await bvsync('plan', path);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /trackedUrls\[1\] \(line \d+\): repeats trackedUrls\[0\] \(the same address in normal form\); keep one entry/,
    );
    expect(result.stderr).toMatch(
      /competitors\[1\] \(line \d+\): repeats competitors\[0\] \(the same name, case aside\); keep one entry/,
    );
    expect(sim.requestLog()).toEqual([]);
  });

  it('plan shows each rejection with its code and reason, exits 1, and writes nothing', async () => {
    sim.clearRequestLog();
    const result = await bvsync('plan', file(), '--json');
    expect(result.code).toBe(1);
    const planned = items(result);
    const rejected = planned
      .filter((item) => item.action === 'rejected')
      .map((item) => [item.kind, item.label, item.code]);
    expect(rejected).toEqual([
      ['topic', 'Topic 7 (prompter, english)', 'plan_limit_reached'],
      ['topic', 'Topic 8 (prompter, english)', 'plan_limit_reached'],
      ['topic', 'Persona that is not (prompter, english)', 'not_found'],
    ]);
    expect(planned.filter((item) => item.action === 'create')).toHaveLength(8);
    expect(writtenSinceClear().total).toBe(0);
  });

  it('apply writes the rest, reports every rejection per item, and exits 1', async () => {
    sim.clearRequestLog();
    const result = await bvsync('apply', file());
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/rejected +topic +Topic 7 \(prompter, english\): plan_limit_reached: /);
    expect(result.stdout).toMatch(/rejected +topic +Persona that is not \(prompter, english\): not_found: /);
    expect(result.stdout).toMatch(/applied to brand 2: 8 created, 0 changed, 0 restored, 3 rejected, 0 unchanged$/m);
    expect(writtenSinceClear().total).toBe(8);
  });
});

describe('writes of one item: restore, persona, tag', () => {
  it("a restore or a persona that does not exist is that item's rejection; a tag change is sent", async () => {
    sim.clearRequestLog();
    const path = writeFile(
      'brand-3-single.yaml',
      [
        'brand: 3',
        'topics:',
        '  - name: Never was',
        '    restore: 999999',
        'personas:',
        '  - id: 999',
        '    city: Nowhere',
        'tags:',
        '  - id: 300004',
        '    color: "#1f77b4"',
      ].join('\n'),
    );
    const result = await bvsync('apply', path, '--json');
    expect(result.code).toBe(1);
    expect(items(result).map((item) => [item.kind, item.action, item.code])).toEqual([
      ['topic', 'rejected', 'not_found'],
      ['persona', 'rejected', 'not_found'],
      ['tag', 'sent again', undefined],
    ]);
    expect(writtenSinceClear().byPath['PATCH /customer/v1/brands/3/tags/300004']).toBe(1);
  });
});

describe('persona and tag changes, which no read can compare', () => {
  it('a second apply sends them again with the same idempotency values and reports none changed', async () => {
    const path = writeFile(
      'brand-3-people.yaml',
      [
        'brand: 3',
        'personas:',
        '  - id: 300001',
        '    city: Lisbon',
        'tags:',
        '  - id: 300004',
        '    color: "#2ca02c"',
      ].join('\n'),
    );
    const patchKeys = () =>
      sim
        .requestLog()
        .filter((entry) => entry.method === 'PATCH')
        .map((entry) => `${entry.path} ${entry.idempotencyKey}`);
    const plan = await bvsync('plan', path);
    expect(plan.stdout).toMatch(
      /0 to change, 0 to restore, 0 rejected, 0 unchanged, 2 to send as given \(no read endpoint to compare\) \(nothing written\)/,
    );
    sim.clearRequestLog();
    const first = await bvsync('apply', path);
    expect(first.code).toBe(0);
    expect(writtenSinceClear().total).toBe(2);
    const sent = patchKeys();
    expect(sent).toHaveLength(2);
    expect(sent.every((line) => /bvsync-/.test(line))).toBe(true);

    sim.clearRequestLog();
    const second = await bvsync('apply', path);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toMatch(/changed +(persona|tag) /);
    expect(second.stdout).toMatch(
      /^ {2}sent again +persona +persona 300001 \(id 300001\): city "Lisbon" \(no read endpoint to compare\)$/m,
    );
    expect(second.stdout).toMatch(
      /applied to brand 3: 0 created, 0 changed, 0 restored, 0 rejected, 0 unchanged, 2 sent again \(no read endpoint to compare\)$/m,
    );
    // The same values: within its 24 hours the API answers the first answer and writes nothing.
    expect(patchKeys()).toEqual(sent);
    expect(writtenSinceClear().total).toBe(0);
  });
});

describe('an apply killed midway', () => {
  it('writes each page once when run again', async () => {
    // 450 pages from a CSV file through --from-sql: three requests of at most 200.
    const csv = ['url,title', ...Array.from({ length: 450 }, (_, n) => `https://example.com/kill/${n},Page ${n}`)].join(
      '\n',
    );
    const pages = writeFile('pages.csv', `${csv}\n`);
    const args = ['apply', '--brand', '3', '--from-sql', `select url, title from read_csv('${pages}')`];
    sim.clearRequestLog();
    // Slow answers, so the process is still between requests when it is killed.
    sim.setKnobs({ latencyMs: 300 });
    const first = spawnBvsync(args, env());
    try {
      await first.waitFor(/sent tracked URLs: request 1 of 3: 200 written/, 60_000);
      first.kill('SIGKILL');
      const killed = await first.done;
      expect(killed.signal).toBe('SIGKILL');
    } finally {
      sim.setKnobs({ latencyMs: 0 });
    }
    // Counted once the request sent just before the kill, if any, is written: read before, the rerun's count differed.
    const before = await answeredWrites();
    expect(before).toBeGreaterThanOrEqual(200);
    expect(before).toBeLessThan(450);

    const rerun = await runBvsync([...args, '--json'], env());
    expect(rerun.code).toBe(0);
    const outcome = items(rerun);
    expect(outcome.filter((item) => item.action === 'unchanged')).toHaveLength(before);
    expect(outcome.filter((item) => item.action === 'created')).toHaveLength(450 - before);
    expect(writtenSinceClear().total).toBe(450);
    const tracked = (await trackedUrlsOf(3)).filter((url) => url.startsWith('https://example.com/kill/'));
    expect(tracked).toHaveLength(450);
    expect(new Set(tracked).size).toBe(450);
  });
});

describe('an apply interrupted with Ctrl-C', () => {
  it('ends at once with exit 1 and says what it leaves; run again, it writes each page once', async () => {
    const csv = ['url', ...Array.from({ length: 450 }, (_, n) => `https://example.com/interrupt/${n}`)].join('\n');
    const pages = writeFile('interrupt.csv', `${csv}\n`);
    const args = ['apply', '--brand', '3', '--from-sql', `select url from read_csv('${pages}')`];
    sim.clearRequestLog();
    sim.setKnobs({ latencyMs: 300 });
    const first = spawnBvsync(args, env());
    let interrupted: CliResult;
    try {
      await first.waitFor(/sent tracked URLs: request 1 of 3: 200 written/, 60_000);
      first.kill('SIGINT');
      interrupted = await first.done;
    } finally {
      sim.setKnobs({ latencyMs: 0 });
    }
    expect(interrupted.code).toBe(1);
    expect(interrupted.stderr).toMatch(
      /^bvsync: interrupted by SIGINT; what was written stays written; run the same apply again/m,
    );
    // A request sent just before the signal is still waiting out its 300 ms at the simulator, which writes it when the
    // wait ends, whoever has gone: counted before that, the rerun looked as if it had written it twice (a CI flake).
    const before = await answeredWrites();
    expect(before).toBeLessThan(450);

    const rerun = await runBvsync([...args, '--json'], env());
    expect(rerun.code).toBe(0);
    expect(items(rerun).filter((item) => item.action === 'created')).toHaveLength(450 - before);
    expect(writtenSinceClear().total).toBe(450);
  });
});

describe('a key, brand or API that fails the first reads', () => {
  it('is a setup error (exit 2) naming what to check, before any write, and never prints the key', async () => {
    const file = writeFile(
      'brand-4.yaml',
      ['brand: 4', 'competitors:', '  - { name: Foo, website: foo.example }'].join('\n'),
    );
    sim.clearRequestLog();
    const denied = await bvsync('apply', file);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toMatch(
      /^bvsync: the API key has no access to brand 4 \(HTTP 403 brand_access_denied, request [^)]+\); nothing was written\. Check the brand id in .*brand-4\.yaml/m,
    );
    const wrongKey = 'bvk_sim_wrong_key_0123456789';
    const refused = await runBvsync(['plan', EXAMPLE], { ...env(), BVSYNC_API_KEY: wrongKey });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^bvsync: the API refused the key \(HTTP 401 unauthorized, request [^)]+\); nothing was written\. Check BVSYNC_API_KEY/m,
    );
    expect(`${denied.stdout}${denied.stderr}${refused.stdout}${refused.stderr}`).not.toContain(wrongKey);
    expect(`${denied.stdout}${denied.stderr}`).not.toContain(sim.apiKey);
    expect(sim.requestLog().filter((entry) => entry.method !== 'GET')).toEqual([]);
  });

  it('an API nobody answers at ends with exit 1 naming the setting to check', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runBvsync(['apply', EXAMPLE], { ...env(), BVSYNC_API_URL: url });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^bvsync: GET \S+: ECONNREFUSED.*; nothing was written\. Check BVSYNC_API_URL \(config "api\.url"\) and the network/m,
    );
  });
});

describe('--from-sql against a DuckDB file', () => {
  it('tracks the pages a table of the file lists', async () => {
    const path = join(dir.path, 'pages.duckdb');
    await runOnFile(
      path,
      `CREATE TABLE pages AS SELECT 'https://example.com/warehouse/' || i AS url, 'Warehouse page ' || i AS title FROM range(3) t(i)`,
    );
    const result = await bvsync(
      'plan',
      '--brand',
      '3',
      '--db',
      path,
      '--from-sql',
      'select url, title from pages order by url',
      '--json',
    );
    expect(result.code).toBe(0);
    expect(items(result).map((item) => [item.label, item.action])).toEqual(
      [0, 1, 2].map((i) => [`https://example.com/warehouse/${i}`, 'create']),
    );
  });

  it('a query without a url column is a usage error naming the columns it has', async () => {
    const result = await bvsync('plan', '--brand', '3', '--from-sql', "select 'x' as address");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--from-sql cannot be used:\n\s+- the query has no column "url" \(it has address\)/);
  });
});

describe('the warehouse', () => {
  it('names the id of a topic of the same name it has seen, for a topic plan would create', async () => {
    const path = join(dir.path, 'warehouse.duckdb');
    await runOnFile(
      path,
      `CREATE TABLE topics AS SELECT 3::BIGINT AS brand_id, 300041::BIGINT AS id, 'Winter comfort' AS name, DATE '2026-10-30' AS last_seen_day`,
    );
    const file = writeFile(
      'brand-3-topic.yaml',
      ['brand: 3', 'topics:', '  - name: Winter comfort', '    scenarios: [Which heater is quiet?]'].join('\n'),
    );
    const result = await runBvsync(['plan', file], { ...env(), BVSYNC_DB: path });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /create +topic +Winter comfort \(prompter, english\): 1 scenario; the warehouse saw topic 300041 \(last on 2026-10-30\) of this name: if it is deleted, add restore: ID/,
    );
  });
});

describe('a desired-state file with mistakes', () => {
  it('lists every problem with its place in the file and exits 2 before any request', async () => {
    sim.clearRequestLog();
    const path = writeFile(
      'wrong.yaml',
      [
        'brand: 1',
        'trackedUrls:',
        '  - url: not-an-address',
        'tags:',
        '  - id: 100004',
        '    color: red',
        'topics:',
        '  - scenarios: [a]',
      ].join('\n'),
    );
    const result = await bvsync('plan', path);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/wrong\.yaml cannot be used:/);
    expect(result.stderr).toMatch(/- tags\[0\]\.color \(line 6\): expected a hex colour #rrggbb/);
    // The missing name is placed at its topic.
    expect(result.stderr).toMatch(/- topics\[0\]\.name \(line 8\): /);
    expect(sim.requestLog()).toHaveLength(0);
  });
});
