import { afterAll, beforeAll, describe, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join, resolve } from 'node:path';
import type { ParamMapping } from '../../src/api/param-names.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';
import { probeWindows } from '../../src/cli/doctor/probe-context.js';
import { addDays } from '../../src/days.js';
import { DEFAULT_STREAM_NAMES } from '../../src/streams/stream-names.js';

const BIN = resolve(import.meta.dirname, '../../bin/bvsync.js');
/** Names a strict API uses instead of bvsync's: each request sending the default name gets a 400 naming it. */
const STRICT_NAMES: ParamMapping = {
  start_date: 'from',
  end_date: 'to',
  page_size: 'limit',
  period: 'granularity',
  ownership: 'owner',
};
/** Names a lenient API uses: it ignores bvsync's default names, so only the answers can show they are wrong. */
const LENIENT_NAMES: ParamMapping = {
  end_date: 'until',
  page_size: 'per_page',
  metric: 'rank_by',
  confirmed: 'only_confirmed',
  topic_id: 'topic',
  mentioned: 'brand_mentioned',
  subject: 'about',
};

let plain: RunningSimulator;
let commaLists: RunningSimulator;
let exclusiveEnds: RunningSimulator;
let strictRenamed: RunningSimulator;
let lenientRenamed: RunningSimulator;
const dir = tempDir('doctor');
/** The simulators' today, and the day doctor is told is today: its probes read the week before it. */
const TODAY = '2026-11-20';

beforeAll(async () => {
  const data = { seed: 3, brands: 1, days: 12, scale: 30, today: TODAY };
  [plain, strictRenamed, lenientRenamed, commaLists, exclusiveEnds] = await Promise.all([
    startSimulator({ ...data, brands: 2 }),
    startSimulator({ ...data, params: STRICT_NAMES }),
    startSimulator({ ...data, params: LENIENT_NAMES, strictParams: false }),
    startSimulator({ ...data, arrayFormat: 'comma' }),
    startSimulator({ ...data, rangeEndEcho: 'exclusive' }),
  ]);
});

afterAll(async () => {
  await Promise.all([
    plain.close(),
    strictRenamed.close(),
    lenientRenamed.close(),
    commaLists.close(),
    exclusiveEnds.close(),
  ]);
  dir.remove();
});

/**
 * A config naming a SWOT statement (the API lists none), so every parameter is checkable; `params` maps the names.
 * The statement is one with answers to page through in doctor's window (the week to yesterday): the first statement
 * had one answer there on some days, and the paging of endpoint 20 could not be checked.
 */
async function configFor(
  sim: RunningSimulator,
  name: string,
  params: ParamMapping = {},
  api: Record<string, unknown> = {},
): Promise<string> {
  const path = join(dir.path, `${name}.json`);
  const window = probeWindows(addDays(TODAY, -1)).wide;
  const answers = async (id: number) => {
    // In the simulator's own names: the strict one refuses bvsync's, whatever this config maps.
    const names = sim === strictRenamed ? STRICT_NAMES : sim === lenientRenamed ? LENIENT_NAMES : {};
    const query = new URLSearchParams({
      [names.start_date ?? 'start_date']: window.startDate,
      [names.end_date ?? 'end_date']: window.endDate,
    });
    const response = await fetch(`${sim.url}/customer/v1/brands/1/swot/${id}?${query}`, {
      headers: { 'x-api-key': sim.apiKey },
    });
    return ((await response.json()) as { info: { total_rows: number } }).info.total_rows;
  };
  let statement = sim.truth.world(1).swotStatements[0]!.id;
  for (const candidate of sim.truth.world(1).swotStatements) {
    if ((await answers(candidate.id)) >= 3) {
      statement = candidate.id;
      break;
    }
  }
  writeFileSync(
    path,
    JSON.stringify({
      api: { params, requestsPerSecond: 1000, ...api },
      sync: { swotStatementIds: { '1': [statement] } },
    }),
  );
  return path;
}

interface Row {
  endpoint: string;
  param: string;
  wire: string;
  verdict: string;
  why: string;
}

/** Runs `bvsync doctor` as a user would; the simulators keep serving because this does not block. */
function doctor(env: Record<string, string>): Promise<{ code: number | null; out: string; rows: Row[] }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'doctor', '--today', TODAY], {
      cwd: dir.path,
      env: { PATH: process.env.PATH, REDIS_URL: TEST_REDIS_URL, BVSYNC_LOG_LEVEL: 'silent', ...env },
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out, rows: tableRows(out) }));
  });
}

function tableRows(out: string): Row[] {
  return out
    .split('\n')
    .filter((line) => line.startsWith('│') && !line.includes('│ endpoint '))
    .map((line) => {
      const [endpoint, param, wire, verdict, why] = line
        .split('│')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { endpoint: endpoint!, param: param!, wire: wire!, verdict: verdict!, why: why! };
    });
}

function row(rows: Row[], endpoint: string, param: string): Row | undefined {
  return rows.find((r) => r.endpoint.startsWith(endpoint) && r.param === param);
}

const env = (sim: RunningSimulator, extra: Record<string, string> = {}) => ({
  BVSYNC_API_URL: sim.url,
  BVSYNC_API_KEY: sim.apiKey,
  BVSYNC_BRANDS: '1',
  ...extra,
});

// One after the other: each run starts a process and sends some 70 requests, about 8 s on a loaded 2-core box;
// side by side they took 30 s each, too near the integration timeout of 60 s.
describe('bvsync doctor', () => {
  it('verifies every parameter of every endpoint against an API with the default names, and exits 0', async ({
    expect,
  }) => {
    const { code, out, rows } = await doctor(
      env(plain, { BVSYNC_CONFIG: await configFor(plain, 'plain'), BVSYNC_BRANDS: plain.brands.join(',') }),
    );
    expect(out).not.toContain('FAIL');
    expect(out).toMatch(/^ok {4}redis: /m);
    // Said before the probes' minute or more against a slow API; stderr is no terminal here.
    expect(out).toMatch(/^probing the query parameter names on brand 1 \(at most 120 requests\)\.\.\.$/m);
    expect(out).toMatch(/^ok {4}brand 2: readable/m);
    expect(out).toMatch(
      /^ok {4}api\.arrayFormat "repeat": engines=\S+ sent as a repeated parameter answers what each engine answers alone, added up \(\d+ \+ \d+\)/m,
    );
    expect(out).toMatch(
      /^ok {4}engines: the visibility report's info\.query names the brand's engines when none is sent/m,
    );
    expect(out).toMatch(
      /^ok {4}ranges: a range of one day \((\d{4}-\d{2}-\d{2})\.\.\1\) holds its answers \(\d+\), as the daily slices need$/m,
    );
    // 13 endpoints, 80 (endpoint, parameter) pairs: the ones src/api/client.ts can send.
    expect(new Set(rows.map((r) => r.endpoint)).size).toBe(13);
    expect(rows).toHaveLength(80);
    expect(rows.filter((r) => r.verdict !== 'verified')).toEqual([]);
    expect(row(rows, 'reports/citations', 'period')?.why).toMatch(/info\.query echoes week/);
    expect(row(rows, 'conversations', 'topic_id')?.why).toMatch(/of \d+ answers/);
    // Two domains' searches compared: one domain's non-empty answer had been enough, though an API ignoring the name gives one too.
    expect(row(rows, 'fanouts/cited', 'domain')?.why).toMatch(/^\S+ and \S+ give different searches$/);
    const requests = Number(/\((\d+) requests with retries; the probes ask at most 120\)/.exec(out)?.[1]);
    expect(requests).toBeGreaterThan(40);
    expect(requests).toBeLessThanOrEqual(120);
    expect(code).toBe(0);
  });

  it('names each wrong name against a lenient API that ignores them, and exits 1', async ({ expect }) => {
    const key = lenientRenamed.apiKey;
    const { code, out, rows } = await doctor(
      env(lenientRenamed, { BVSYNC_CONFIG: await configFor(lenientRenamed, 'lenient') }),
    );
    expect(out).toMatch(/^ok {4}brand 1: readable/m);
    const wrong = (endpoint: string, param: string) =>
      expect(row(rows, endpoint, param), `${endpoint} ${param}`).toMatchObject({ verdict: 'wrong' });
    wrong('products/ranking', 'metric');
    wrong('products/ranking', 'subject');
    wrong('competitors', 'confirmed');
    wrong('conversations', 'topic_id');
    wrong('conversations', 'mentioned');
    wrong('conversations', 'end_date');
    wrong('reports/visibility/topics', 'end_date');
    for (const endpoint of ['conversations', 'templates', 'articles', 'content-analyses', 'products/ranking'])
      wrong(endpoint, 'page_size');
    expect(row(rows, 'conversations', 'page_size')?.why).toMatch(/asked for 1 record per page, the API sent \d+/);
    expect(row(rows, 'competitors', 'confirmed')?.why).toMatch(/accepted confirmed=maybe/);
    expect(row(rows, 'reports/visibility/topics', 'end_date')?.why).toMatch(
      /info\.query does not hold it \(it holds .*until/,
    );
    // The names the API does know stay verified: a wrong name does not drag the rest down.
    expect(row(rows, 'conversations', 'start_date')?.verdict).toBe('verified');
    expect(row(rows, 'reports/citations', 'period')?.verdict).toBe('verified');
    expect(row(rows, 'tracked-urls', 'search')?.verdict).toBe('verified');
    expect(rows.filter((r) => r.verdict === 'wrong').every((r) => Object.keys(LENIENT_NAMES).includes(r.param))).toBe(
      true,
    );
    expect(out).toMatch(
      /^FAIL {2}parameter names: \d+ verified, \d+ wrong, .*confirmed as "confirmed" on competitors \(7\).* and \d+ more \(see the table\)/m,
    );
    expect(out).not.toContain(key);
    expect(code).toBe(1);
  });

  it('passes against the lenient API once api.params maps its names', async ({ expect }) => {
    const { code, out, rows } = await doctor(
      env(lenientRenamed, { BVSYNC_CONFIG: await configFor(lenientRenamed, 'lenient-mapped', LENIENT_NAMES) }),
    );
    expect(row(rows, 'products/ranking', 'metric')).toMatchObject({ wire: 'rank_by', verdict: 'verified' });
    expect(row(rows, 'competitors', 'confirmed')).toMatchObject({ wire: 'only_confirmed', verdict: 'verified' });
    expect(rows.filter((r) => r.verdict === 'wrong')).toEqual([]);
    expect(out).toMatch(/^ok {4}parameter names: /m);
    expect(code).toBe(0);
  });

  it('reports a name a strict API refuses as wrong, from the 400 naming it', async ({ expect }) => {
    const { code, out, rows } = await doctor(
      env(strictRenamed, { BVSYNC_CONFIG: await configFor(strictRenamed, 'strict') }),
    );
    for (const [endpoint, param] of [
      ['conversations', 'start_date'],
      ['conversations', 'page_size'],
      ['reports/citations', 'period'],
      ['reports/citations', 'ownership'],
      ['templates', 'page_size'],
    ] as const) {
      expect(row(rows, endpoint, param), `${endpoint} ${param}`).toMatchObject({ verdict: 'wrong' });
      expect(row(rows, endpoint, param)?.why).toContain(`the API refused "${param}": unknown query parameter`);
    }
    // The requests go on without the refused names, so the other parameters are still judged in the same run.
    expect(row(rows, 'templates', 'type')?.verdict).toBe('verified');
    expect(row(rows, 'conversations', 'topic_id')?.verdict).toBe('verified');
    expect(row(rows, 'reports/citations', 'sentiment')?.verdict).toBe('verified');
    expect(
      rows
        .filter((r) => r.verdict === 'wrong')
        .map((r) => r.param)
        .every((param) => param in STRICT_NAMES),
    ).toBe(true);
    expect(out).toMatch(/^FAIL {2}parameter names: /m);
    expect(code).toBe(1);
  });

  it('passes against the strict API once api.params maps its names', async ({ expect }) => {
    const { code, out, rows } = await doctor(
      env(strictRenamed, { BVSYNC_CONFIG: await configFor(strictRenamed, 'strict-mapped', STRICT_NAMES) }),
    );
    expect(out).not.toContain('FAIL');
    expect(row(rows, 'conversations', 'page_size')).toMatchObject({ wire: 'limit', verdict: 'verified' });
    expect(rows.filter((r) => r.verdict !== 'verified')).toEqual([]);
    expect(code).toBe(0);
  });

  it('passes a name it finds wrong that a sync of sync.streams never sends, saying so', async ({ expect }) => {
    // The API reads the tracked pages' search text as `q`: a filter of the spec no sync stream sends.
    const searchRenamed = await startSimulator({
      seed: 3,
      brands: 1,
      days: 12,
      scale: 30,
      today: TODAY,
      strictParams: false,
      endpointParams: { 'tracked-urls': { search: 'q' } },
    });
    try {
      const { code, out, rows } = await doctor(
        env(searchRenamed, { BVSYNC_CONFIG: await configFor(searchRenamed, 'search-renamed') }),
      );
      expect(row(rows, 'tracked-urls', 'search')).toMatchObject({ wire: 'search', verdict: 'wrong' });
      // It had failed doctor, exit 1, for a name no run would send.
      expect(out).toMatch(
        /^ok +parameter names a sync of sync\.streams does not send: wrong, and costing a run nothing: search as "search" on tracked-urls \(3\)$/m,
      );
      expect(out).not.toMatch(/^FAIL +parameter names/m);
      expect(code).toBe(0);
    } finally {
      await searchRenamed.close();
    }
  });

  it("reads the engines of the echo under the engines parameter's wire name, as the sync does", async ({ expect }) => {
    const renamed = await startSimulator({
      seed: 3,
      brands: 1,
      days: 12,
      scale: 30,
      today: TODAY,
      params: { engines: 'models' },
    });
    try {
      const { out } = await doctor(
        env(renamed, { BVSYNC_CONFIG: await configFor(renamed, 'engines-renamed', { engines: 'models' }) }),
      );
      // It had looked under the literal `engines` only: "names no engines ... set sync.engineBreakdown", for a mapping that works.
      expect(out).toMatch(
        /^ok +engines: the visibility report's info\.query names the brand's engines when none is sent \(.+\)$/m,
      );
      expect(out).not.toMatch(/names no engines/);
    } finally {
      await renamed.close();
    }
  });

  it('fails an API whose one-day range is empty (the end day left out): every daily slice would load empty', async ({
    expect,
  }) => {
    plain.setKnobs({ endDayLeftOut: true });
    try {
      const { code, out } = await doctor(env(plain, { BVSYNC_CONFIG: await configFor(plain, 'end-day-left-out') }));
      expect(out).toMatch(
        /^FAIL {2}ranges: a range of one day \((\d{4}-\d{2}-\d{2})\.\.\1\) gives no answers, though \d+ of the window's are of that day: the API leaves the end day out/m,
      );
      expect(code).toBe(1);
    } finally {
      plain.setKnobs({ endDayLeftOut: false });
    }
  });

  it('fails an API whose total_rows counts only its own page: runs cannot tell a slice read whole', async ({
    expect,
  }) => {
    plain.setKnobs({ oddities: ['page_total'] });
    try {
      const { code, out } = await doctor(env(plain, { BVSYNC_CONFIG: await configFor(plain, 'page-total') }));
      expect(out).toMatch(
        /^FAIL {2}paging: conversations \(13\)'s total_rows counts the records of its page, not the set \(total_rows 1 on a page of 1, yet page 2 holds more\)/m,
      );
      // Its counts of one engine and of two at one record a page are 1 each: no evidence on how lists travel.
      expect(out).toMatch(
        /^ok +api\.arrayFormat "repeat": not checked, total_rows is 1 for the list and for each engine alone/m,
      );
      expect(code).toBe(1);
    } finally {
      plain.setKnobs({ oddities: [] });
    }
  });

  it('fails an API that numbers its pages from 0, naming api.firstPage, and passes it once that is set', async ({
    expect,
  }) => {
    plain.setKnobs({ firstPage: 0 });
    try {
      const wrong = await doctor(env(plain, { BVSYNC_CONFIG: await configFor(plain, 'first-page-default') }));
      // Before, "all checks passed", and a backfill loaded no conversation of a day with fewer than 100.
      expect(wrong.out).toMatch(
        /^FAIL {2}paging: conversations \(13\)'s page 1 holds a record at one record a page, but at two a page it begins with another record: the API does not number its first page 1 .*try api\.firstPage 0$/m,
      );
      expect(wrong.code).toBe(1);
      const right = await doctor(
        env(plain, { BVSYNC_CONFIG: await configFor(plain, 'first-page-0', {}, { firstPage: 0 }) }),
      );
      expect(right.out).not.toMatch(/firstPage/);
      expect(right.code, right.out).toBe(0);
    } finally {
      plain.setKnobs({ firstPage: 1 });
    }
  });

  it("fails an API whose days are another zone's, naming answers dated outside the UTC day asked for", async ({
    expect,
  }) => {
    plain.setKnobs({ dayZoneHours: -5 });
    try {
      const { code, out } = await doctor(env(plain, { BVSYNC_CONFIG: await configFor(plain, 'day-zone') }));
      // Before, "ranges: a range of one day ... holds its answers": the reports' days were New York's, filed as UTC days.
      expect(out).toMatch(
        /^FAIL {2}ranges: a range of one day \((\d{4}-\d{2}-\d{2})\.\.\1\) answers \d+ of \d+ answers dated outside that UTC day \(\S+ .*\): the API's days are another time zone's/m,
      );
      expect(code).toBe(1);
    } finally {
      plain.setKnobs({ dayZoneHours: 0 });
    }
  });

  it('names a wrong API URL as the preflight does: https to an http server, a path before /customer/v1', async ({
    expect,
  }) => {
    const tls = await doctor(
      env(plain, { BVSYNC_API_URL: plain.url.replace('http://', 'https://'), BVSYNC_CONFIG: '' }),
    );
    // Before, OpenSSL's own text ("ssl3_get_record:wrong version number:../deps/openssl/...").
    expect(tls.out).toMatch(
      /^FAIL {2}api: the TLS handshake failed \(ERR_SSL_[A-Z_]+\): is it an http:\/\/ server\?; check BVSYNC_API_URL/m,
    );
    expect(tls.code).toBe(1);
    const prefixed = await doctor(
      env(plain, { BVSYNC_API_URL: `${plain.url}/api`, BVSYNC_BRANDS: '1,2', BVSYNC_CONFIG: '' }),
    );
    // Before, a 404 per brand and nothing about the URL.
    expect(prefixed.out).toMatch(
      /^FAIL {2}api: no brand's competitors list is at \S+\/api \(HTTP 404 for every brand\); check BVSYNC_API_URL/m,
    );
    expect(prefixed.code).toBe(1);
  });

  it('judges no name by an info.query that repeats the request, and says so', async ({ expect }) => {
    lenientRenamed.setKnobs({ echoMirror: true });
    try {
      const { code, out, rows } = await doctor(
        env(lenientRenamed, { BVSYNC_CONFIG: await configFor(lenientRenamed, 'mirror') }),
      );
      expect(out).toMatch(
        /^FAIL {2}info\.query repeats the request: it echoes bvsync_echo_check, a name no API reads/m,
      );
      // The API reads the range's end as `until`: the repeated end_date had verified the name it ignores.
      for (const endpoint of ['reports/visibility', 'reports/citations']) {
        expect(row(rows, endpoint, 'end_date')?.verdict, endpoint).not.toBe('verified');
        expect(row(rows, endpoint, 'end_date')?.why, endpoint).not.toMatch(/info\.query echoes/);
      }
      expect(code).toBe(1);
    } finally {
      lenientRenamed.setKnobs({ echoMirror: false });
    }
  });

  it('names the wrong ones against `bvsync simulate --no-strict-params --params FILE`, as a user starts it', async ({
    expect,
  }) => {
    const names = join(dir.path, 'names.json');
    writeFileSync(names, JSON.stringify({ metric: 'rank_by', confirmed: 'only_confirmed' }));
    const config = join(dir.path, 'cli-sim.json');
    writeFileSync(config, JSON.stringify({ api: { requestsPerSecond: 1000 } }));
    const sim = spawn(
      process.execPath,
      [
        BIN,
        'simulate',
        '--port',
        '0',
        '--json',
        '--seed',
        '3',
        '--days',
        '12',
        '--scale',
        '30',
        '--brands',
        '1',
        '--no-strict-params',
        '--params',
        names,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const [line] = (await once(createInterface({ input: sim.stdout! }), 'line')) as [string];
      const facts = JSON.parse(line) as { url: string; api_key: string };
      const { code, rows } = await doctor({
        BVSYNC_CONFIG: config,
        BVSYNC_API_URL: facts.url,
        BVSYNC_API_KEY: facts.api_key,
        BVSYNC_BRANDS: '1',
      });
      expect(rows.filter((r) => r.verdict === 'wrong').map((r) => `${r.endpoint} ${r.param}`)).toEqual([
        'competitors (7) confirmed',
        'products/ranking (19) metric',
      ]);
      expect(code).toBe(1);
    } finally {
      sim.kill('SIGTERM');
    }
  });

  it('fails when the API reads lists otherwise than api.arrayFormat sends them, and passes once it is set', async ({
    expect,
  }) => {
    const config = await configFor(commaLists, 'comma');
    const sent = await doctor(env(commaLists, { BVSYNC_CONFIG: config }));
    expect(sent.out).toMatch(
      /^FAIL {2}api\.arrayFormat "repeat": engines=\S+ sent as a repeated parameter.*try api\.arrayFormat "comma"$/m,
    );
    expect(sent.code).toBe(1);
    const path = join(dir.path, 'comma-set.json');
    writeFileSync(
      path,
      JSON.stringify({
        ...JSON.parse(readFileSync(config, 'utf8')),
        api: { arrayFormat: 'comma', requestsPerSecond: 1000 },
      }),
    );
    const set = await doctor(env(commaLists, { BVSYNC_CONFIG: path }));
    expect(set.out).toMatch(
      /^ok {4}api\.arrayFormat "comma": engines=\S+ sent comma-separated answers what each engine answers alone/m,
    );
    expect(set.out).not.toContain('FAIL');
    expect(set.code).toBe(0);
  });

  it('verifies end_date against an API that echoes the end of the range as exclusive (the next day at 00:00)', async ({
    expect,
  }) => {
    const { code, out, rows } = await doctor(
      env(exclusiveEnds, { BVSYNC_CONFIG: await configFor(exclusiveEnds, 'exclusive') }),
    );
    const echoed = rows.filter((r) => r.param === 'end_date' && /info\.query/.test(r.why));
    expect(echoed.length).toBeGreaterThan(0);
    for (const r of echoed) {
      expect(r.verdict, `${r.endpoint}: ${r.why}`).toBe('verified');
      expect(r.why).toMatch(
        /info\.query echoes \d{4}-\d{2}-\d{2}T00:00:00Z, the instant after the day sent: the API reads the end as exclusive/,
      );
    }
    expect(out).not.toContain('FAIL');
    expect(code).toBe(0);
  });

  it("reads a range echoed with times by its instants: another zone's days are wrong, an end at its midnight unchecked", async ({
    expect,
  }) => {
    const data = { seed: 3, brands: 1, days: 12, scale: 30, today: TODAY };
    const [offset, midnight] = await Promise.all([
      startSimulator({ ...data, rangeEndEcho: 'offset' }),
      startSimulator({ ...data, rangeEndEcho: 'midnight' }),
    ]);
    try {
      // Their first ten characters are the days sent: both had been "verified ... as sent".
      const zoned = await doctor(env(offset, { BVSYNC_CONFIG: await configFor(offset, 'offset') }));
      const starts = zoned.rows.filter((r) => r.param === 'start_date' && /info\.query/.test(r.why));
      expect(starts.length).toBeGreaterThan(0);
      for (const r of starts) {
        expect(r.verdict).toBe('wrong');
        expect(r.why).toMatch(
          /T00:00:00-05:00 for start_date=\d{4}-\d{2}-\d{2}, 5 h after the UTC day's start: the API's days are not UTC days/,
        );
      }
      expect(zoned.code).toBe(1);
      const atMidnight = await doctor(env(midnight, { BVSYNC_CONFIG: await configFor(midnight, 'midnight') }));
      const ends = atMidnight.rows.filter((r) => r.param === 'end_date' && /info\.query/.test(r.why));
      expect(ends.length).toBeGreaterThan(0);
      for (const r of ends) {
        expect(r.verdict).toBe('cannot be checked');
        expect(r.why).toMatch(
          /T00:00:00Z for end_date=\d{4}-\d{2}-\d{2}, the day's first instant: an API that ends the range there leaves the end day out/,
        );
      }
      expect(
        atMidnight.rows
          .filter((r) => r.param === 'start_date' && /info\.query/.test(r.why))
          .every((r) => r.verdict === 'verified'),
      ).toBe(true);
    } finally {
      await Promise.all([offset.close(), midnight.close()]);
    }
  });

  it('fails on an endpoint that answers 403 to a key that reads the brand (a plan without it), naming it', async ({
    expect,
  }) => {
    plain.setKnobs({ refusedPaths: ['products/ranking'] });
    try {
      const config = await configFor(plain, 'refused-endpoint');
      const { code, out } = await doctor(env(plain, { BVSYNC_CONFIG: config }));
      // It had said "cannot be checked" of its parameters and ended "all checks passed".
      expect(out).toMatch(
        /^FAIL {2}products\/ranking \(19\): the key reads brand 1 but not this endpoint \(.*403 forbidden.*\); every slice of product_ranking\b[a-z_, ]* would fail: take them out of sync\.streams/m,
      );
      expect(out.match(/^FAIL/gm)).toHaveLength(1);
      expect(code).toBe(1);
      // Following the advice passes: no stream synced reads the endpoint any more.
      const file = JSON.parse(readFileSync(config, 'utf8')) as { sync: Record<string, unknown> };
      file.sync.streams = DEFAULT_STREAM_NAMES.filter((name) => !name.startsWith('product_ranking'));
      writeFileSync(config, JSON.stringify(file));
      const advised = await doctor(env(plain, { BVSYNC_CONFIG: config }));
      expect(advised.out).toMatch(
        /^ok {4}products\/ranking \(19\): the key may not read this endpoint \(.*403 forbidden.*\); no stream synced reads it$/m,
      );
      expect(advised.out).not.toContain('FAIL');
      expect(advised.code).toBe(0);
    } finally {
      plain.setKnobs({ refusedPaths: [] });
    }
  });

  it('fails on an endpoint none of whose requests is answered (a 404 for its path), naming it', async ({ expect }) => {
    plain.setKnobs({ missingPaths: ['templates'] });
    try {
      const { code, out } = await doctor(env(plain, { BVSYNC_CONFIG: await configFor(plain, 'missing-endpoint') }));
      // Its rows said "cannot be checked" and doctor ended "all checks passed", while a run failed every slice of it.
      expect(out).toMatch(
        /^FAIL {2}templates \(10\): no request doctor sent was answered \(the first: .*404 not_found.*\); every slice of templates would fail the same way: check api\.url/m,
      );
      expect(out.match(/^FAIL/gm)).toHaveLength(1);
      expect(code).toBe(1);
    } finally {
      plain.setKnobs({ missingPaths: [] });
    }
  });

  it('takes a refused competitors list for the endpoint, not the key, when the content analyses answer', async ({
    expect,
  }) => {
    plain.setKnobs({ refusedPaths: ['competitors'] });
    try {
      const { code, out } = await doctor(env(plain, { BVSYNC_CONFIG: await configFor(plain, 'refused-list') }));
      // It had said "the key is refused" and checked nothing more.
      expect(out).not.toMatch(/the key is refused/);
      expect(out).toMatch(
        /^ok +api: the key is accepted \(the competitors list is refused, HTTP 403 forbidden, the content analyses answered\)$/m,
      );
      expect(out).toMatch(/^ok +brand 1: readable \(by its content analyses: its competitors list is refused\)$/m);
      expect(out).toMatch(/^FAIL {2}competitors \(7\): the key reads brand 1 but not this endpoint/m);
      expect(code).toBe(1);
    } finally {
      plain.setKnobs({ refusedPaths: [] });
    }
  });

  it('fails on records that fail validation, naming the endpoint and the first issue', async ({ expect }) => {
    plain.setKnobs({ invalidShare: 0.5 });
    try {
      const { code, out } = await doctor(env(plain, { BVSYNC_CONFIG: await configFor(plain, 'invalid-records') }));
      // It had judged the parameters on what was left and said nothing of the rest.
      expect(out).toMatch(
        /^FAIL {2}conversations \(13\): \d+ of \d+ records in doctor's answers failed validation \(the first: [^)]+\); a run of conversations sets such records aside/m,
      );
      expect(code).toBe(1);
    } finally {
      plain.setKnobs({ invalidShare: 0 });
    }
  });

  it('fails on a brand the key cannot read, naming it', async ({ expect }) => {
    const { code, out } = await doctor(
      env(plain, { BVSYNC_BRANDS: `1,${plain.forbiddenBrand}`, BVSYNC_CONFIG: await configFor(plain, 'forbidden') }),
    );
    expect(out).toMatch(new RegExp(`^FAIL  brand ${plain.forbiddenBrand}: .*brand_access_denied`, 'm'));
    expect(code).toBe(1);
  });

  it('fails clearly on a wrong key, a missing config value and a config that cannot run', async ({ expect }) => {
    const wrongKey = await doctor(env(plain, { BVSYNC_API_KEY: 'bvk_wrong_key_123' }));
    expect(wrongKey.out).toMatch(/^FAIL {2}api: the key is refused/m);
    expect(wrongKey.rows).toEqual([]);
    expect(wrongKey.code).toBe(1);
    // The Redis checks every other command makes: a database the server refuses (they exit 2 on it), and the reason it
    // cannot connect (it said only "Connection is closed.").
    const wrongDatabase = await doctor(
      env(plain, { BVSYNC_API_KEY: 'bvk_wrong_key_123', REDIS_URL: `${TEST_REDIS_URL.replace(/\/\d*$/, '')}/99` }),
    );
    expect(wrongDatabase.out).toMatch(/^FAIL {2}redis: REDIS_URL \S+ names database 99, which this Redis refuses/m);
    const noRedis = await doctor(env(plain, { BVSYNC_API_KEY: 'bvk_wrong_key_123', REDIS_URL: 'redis://127.0.0.1:1' }));
    expect(noRedis.out).toMatch(/^FAIL {2}redis: redis:\/\/127\.0\.0\.1:1\S*: .*ECONNREFUSED/m);
    const missing = await doctor({ BVSYNC_API_URL: plain.url, BVSYNC_BRANDS: '1' });
    expect(missing.out).toMatch(/^FAIL {2}config: missing api\.apiKey/m);
    expect(missing.code).toBe(1);
    const path = join(dir.path, 'bvsync.config.json');
    writeFileSync(
      path,
      JSON.stringify({
        sync: { startDate: '2026-02-31' },
        schedules: [
          { name: 'daily', cron: '0 2 * * *' },
          { name: 'late', cron: '0 25 * * *' },
        ],
      }),
    );
    const broken = await doctor(env(plain, { BVSYNC_CONFIG: path }));
    expect(broken.out).toMatch(/^FAIL {2}config: .*bvsync\.config\.json is not a valid bvsync config:/m);
    expect(broken.out).toMatch(/^\s+- sync\.startDate: "2026-02-31" is not a day of the calendar/m);
    expect(broken.out).toMatch(
      /^\s+- schedules\[1\]\.cron: "0 25 \* \* \*" is not a valid cron expression \(hour "25": 25 is out of range 0-23\)/m,
    );
    expect(broken.code).toBe(1);
  });
});
