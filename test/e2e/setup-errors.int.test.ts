import { holdFile, holdOpen } from '../support/held-file.js';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/engine/redis/redis.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { until } from '../support/until.js';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';

/**
 * A setup that cannot work — a database file that is not one, an API nobody answers at, a working file another
 * program holds — gets one clear message and a non-zero exit instead of a run that retries quietly, and the file
 * in the way is left as it was.
 */

let fx: EngineFixture;
let config: string;
const backfill = (cfg: string) => [
  'backfill',
  '--from',
  '2026-11-19',
  '--to',
  '2026-11-19',
  '--streams',
  'competitors',
  '--today',
  '2026-11-20',
  '--config',
  cfg,
];

beforeAll(async () => {
  fx = await engineFixture('setup-errors');
  config = writeCliConfig(fx);
});
afterAll(async () => fx?.cleanup());

describe('a setup that cannot work', () => {
  it('a BVSYNC_DB that is not a DuckDB file: named, and left untouched (exit 2, a config error)', async () => {
    const path = `${fx.dir}/notes.duckdb`;
    writeFileSync(path, 'these are my notes, not a database\n');
    const result = await runBvsync(backfill(config), cliEnv(fx, { BVSYNC_DB: path }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^bvsync: .*notes\.duckdb is not a DuckDB database; move it away or set BVSYNC_DB/);
    expect(readFileSync(path, 'utf8')).toBe('these are my notes, not a database\n');
  });

  it('an API nobody answers at: named with the reason, no run started', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runBvsync(backfill(config), cliEnv(fx, { BVSYNC_API_URL: url }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`bvsync: cannot reach the API at ${url}: ECONNREFUSED`);
  });

  it('an API URL that is not the base: refused before a run, saying what the URL should be', async () => {
    const base = fx.sim.url;
    const cases: Array<[string, RegExp]> = [
      [
        `${base}/customer/v1`,
        /api\.url \(from BVSYNC_API_URL\): the base URL ends before \/customer\/v1 .*drop \/customer\/v1 from it/,
      ],
      [
        base.replace('http://', ''),
        /api\.url \(from BVSYNC_API_URL\): expected a URL that starts with http:\/\/ or https:\/\//,
      ],
      [
        `${base}/api`,
        /bvsync: the API has no GET \/customer\/v1\/brands\/1\/competitors at this URL \(HTTP 404 for every brand\); nothing was planned or fetched\. Check BVSYNC_API_URL/,
      ],
      [
        base.replace('http://', 'https://'),
        /bvsync: the TLS handshake failed \(ERR_SSL_WRONG_VERSION_NUMBER\): is it an http:\/\/ server\?/,
      ],
    ];
    for (const [url, message] of cases) {
      const result = await runBvsync(backfill(config), cliEnv(fx, { BVSYNC_API_URL: url }));
      expect({ url, code: result.code }).toEqual({ url, code: 2 });
      expect(result.stderr).toMatch(message);
    }
  });

  it('an API URL where a proxy answers every request with its login page: refused before a run, at two requests a brand', async () => {
    let requests = 0;
    const proxy = createServer((_request, response) => {
      requests += 1;
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><body>Sign in to the corporate network</body></html>');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const result = await runBvsync(backfill(config), cliEnv(fx, { BVSYNC_API_URL: url }));
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(
        /bvsync: the answer at this URL is not the API's: GET \/customer\/v1\/brands\/1\/competitors: HTTP 200 with a body that is not JSON \(text\/html, .*; nothing was planned or fetched\. Check BVSYNC_API_URL/,
      );
      // The run had gone on: 143 requests for a 3-day backfill against helper-61's mock, each slice asking 24 times.
      expect(requests).toBe(2 * fx.config.brands.length);
    } finally {
      proxy.close();
    }
  });

  it('a working file held open by another program: the run gives up with why, instead of waiting forever', async () => {
    const db = `${fx.dir}/held.duckdb`;
    const holder = await holdOpen(workingPathFor(db));
    try {
      const result = await runBvsync(backfill(config), cliEnv(fx, { BVSYNC_DB: db, BVSYNC_LEASE_TTL_MS: '900' }));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /bvsync: cannot open the working database beside .*held\.duckdb: .*Is another program .* holding the \.work\.duckdb file\?/s,
      );
    } finally {
      holder.kill('SIGKILL');
    }
  }, 60_000);

  it('a working file held by a bvsync worker of another Redis prefix: named as such, with the setting to align', async () => {
    const db = `${fx.dir}/shared.duckdb`;
    const worker = spawnBvsync(
      ['worker', '--config', config],
      cliEnv(fx, { BVSYNC_DB: db, BVSYNC_REDIS_PREFIX: `${fx.config.redisPrefix}-other` }),
    );
    try {
      await worker.waitFor(/holding the DuckDB writer lease/);
      // A prefix of its own, as the worker has: the run the test above left unfinished is another file's.
      const result = await runBvsync(
        backfill(config),
        cliEnv(fx, { BVSYNC_DB: db, BVSYNC_LEASE_TTL_MS: '900', BVSYNC_REDIS_PREFIX: `${fx.config.redisPrefix}-mine` }),
      );
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `is held by another process .*It is another bvsync \\(PID ${worker.pid}: bvsync worker --config `,
          's',
        ),
      );
      expect(result.stderr).toMatch(
        /Give every process of this warehouse the same REDIS_URL and redisPrefix \(BVSYNC_REDIS_PREFIX\)/,
      );
      expect(result.stderr).not.toMatch(/Is another program/);
    } finally {
      worker.kill('SIGKILL');
      await worker.done;
    }
  }, 60_000);

  it('a working file held by a bvsync that lets go seconds later (a last writer still closing): the run waits for it and completes', async () => {
    const db = `${fx.dir}/closing.duckdb`;
    // Another prefix, so this worker never hands the lease over: it stands for a writer that lost the lease and is
    // still finishing its load. Three tries a lease ttl apart (~2 s here) gave up on it.
    const worker = spawnBvsync(
      ['worker', '--config', config],
      cliEnv(fx, { BVSYNC_DB: db, BVSYNC_REDIS_PREFIX: `${fx.config.redisPrefix}-closing` }),
    );
    let command: CliProcess | undefined;
    try {
      // The command starts once the worker has the file: started together, on a loaded box the command opened it first.
      await worker.waitFor(/holding the DuckDB writer lease/);
      command = spawnBvsync(
        backfill(config),
        cliEnv(fx, {
          BVSYNC_DB: db,
          BVSYNC_LEASE_TTL_MS: '900',
          BVSYNC_REDIS_PREFIX: `${fx.config.redisPrefix}-waiting`,
        }),
      );
      // Let go after four tries of the command, past the three it once gave up after: counted, not timed.
      const tries = () => command!.output().match(/could not open the working database; handing it back/g)?.length ?? 0;
      await until('four tries of the working file', () => tries() >= 4, 60_000);
      worker.kill('SIGTERM');
      expect((await worker.done).code).toBe(0);
      const result = await command.done;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/run backfill-\S+: complete/);
    } finally {
      worker.kill('SIGKILL');
      command?.kill('SIGKILL');
    }
  }, 90_000);

  // A command waits for a holder that may let go past the three tries after which another program's file is given up.
  it.each([
    {
      what: 'a bvsync held, now held under another name (as /proc names a bvsync that exited)',
      name: 'renamed',
      firstTry: /It is another bvsync \(PID \d+: bvsync worker\)/,
      retitledAfterFirstTry: 'duckdb',
      eachTry: /Is another program \(PID \d+: duckdb\)/,
    },
    {
      what: 'held by a process exiting, its command line emptied',
      name: 'exiting',
      retitledBefore: '',
      eachTry: /It is PID \d+, exiting: its lock goes with it/,
    },
  ])(
    'a working file $what: the run waits for it past three tries and completes',
    async (holding) => {
      const db = `${fx.dir}/${holding.name}.duckdb`;
      const held = await holdFile(workingPathFor(db), { args: ['bvsync', 'worker'] });
      let command: CliProcess | undefined;
      try {
        if (holding.retitledBefore !== undefined) await held.retitle(holding.retitledBefore);
        command = spawnBvsync(
          backfill(config),
          cliEnv(fx, {
            BVSYNC_DB: db,
            BVSYNC_LEASE_TTL_MS: '900',
            BVSYNC_REDIS_PREFIX: `${fx.config.redisPrefix}-${holding.name}`,
          }),
        );
        if (holding.firstTry) await command.waitFor(holding.firstTry);
        if (holding.retitledAfterFirstTry !== undefined) await held.retitle(holding.retitledAfterFirstTry);
        await command.waitFor(new RegExp(`(${holding.eachTry.source}[\\s\\S]*){4}`), 60_000);
        await held.release();
        const result = await command.done;
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/run backfill-\S+: complete/);
      } finally {
        held.holder.kill('SIGKILL');
        command?.kill('SIGKILL');
      }
    },
    90_000,
  );
});
