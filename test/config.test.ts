import { describeRedisAddress, parseRedisAddress } from '../src/redis-address.js';
import { describe, expect, it } from 'vitest';
import { ConfigError, jsonProblem } from '../src/config/load.js';
import { DEFAULT_DUCKDB_BUDGET } from '../src/warehouse/file/duckdb-budget.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './support/tmp.js';
import { loadConfig, parseConfig } from '../src/configuration.js';
import { redactSecrets } from '../src/log.js';

describe('config', () => {
  it('fills every default from an empty object', () => {
    const config = parseConfig({});
    expect(config.api.arrayFormat).toBe('repeat');
    expect(config.api.idempotencyHeader).toBe('Idempotency-Key');
    expect(config.sync.lookbackDays).toBe(3);
    expect(config.brands).toEqual([]);
  });

  it('lists every problem with where it is', () => {
    try {
      parseConfig(
        { api: { arrayFormat: 'csv', params: { pagesize: 'ps' } }, brands: [1, 1], sync: { streams: ['nope'] } },
        'x.json',
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).toContain('x.json is not a valid bvsync config');
      expect(message).toContain('api.arrayFormat');
      expect(message).toContain('api.params.pagesize');
      expect(message).toContain('sync.streams[0]');
      expect(message).toContain('brands');
    }
  });

  it("takes one endpoint's own names in api.endpointParams, and names an endpoint or a parameter it does not have", () => {
    const config = parseConfig({
      api: {
        params: { start_date: 'since' },
        endpointParams: {
          'tracked-urls': { start_date: 'start_date' },
          'citations/domains/{domain}': { engines: 'models' },
        },
      },
    });
    expect(config.api.endpointParams['tracked-urls']).toEqual({ start_date: 'start_date' });
    try {
      parseConfig(
        { api: { endpointParams: { 'tracked-url': { start_date: 'from' }, competitors: { start_date: 'from' } } } },
        'x.json',
      );
      expect.unreachable();
    } catch (error) {
      const { problems } = error as ConfigError;
      expect(problems.find((line) => line.startsWith('api.endpointParams.tracked-url:'))).toMatch(
        /unknown endpoint "tracked-url"; endpoints: .*tracked-urls/,
      );
      // Competitors take no range: a name for one would never be sent.
      expect(problems.find((line) => line.startsWith('api.endpointParams.competitors.start_date:'))).toMatch(
        /competitors sends no parameter "start_date"; it sends: /,
      );
    }
  });

  it('names the key a mistyped one is a typo of, or the keys allowed there', () => {
    try {
      parseConfig(
        { api: { requestPerSecond: 5 }, brand: [1], sync: { lookbackDay: 3 }, warehouse: { zzz: 1 } },
        'x.json',
      );
      expect.unreachable();
    } catch (error) {
      const { problems } = error as ConfigError;
      expect(problems).toContain('api: Unrecognized key: "requestPerSecond"; did you mean "requestsPerSecond"?');
      expect(problems).toContain('sync: Unrecognized key: "lookbackDay"; did you mean "lookbackDays"?');
      expect(problems).toContain('(top level): Unrecognized key: "brand"; did you mean "brands"?');
      expect(problems.find((line) => line.startsWith('warehouse:'))).toMatch(
        /^warehouse: Unrecognized key: "zzz"; the keys here: \S+/,
      );
    }
  });

  it('refuses a request budget that leaves backfills not one request of a window', () => {
    expect(() => parseConfig({ api: { dailyRequestBudget: 4, reservedForSync: 0.9 } }, 'x.json')).toThrow(
      /api\.dailyRequestBudget: 4 leaves backfills no request once api\.reservedForSync \(0\.9\) is kept for syncs/,
    );
    expect(parseConfig({ api: { dailyRequestBudget: 10, reservedForSync: 0.9 } }).api.dailyRequestBudget).toBe(10);
  });

  it('reads a db path under ~ as under the home folder, as a shell would', async () => {
    const { homedir } = await import('node:os');
    expect(parseConfig({ db: '~/bv.duckdb' }).db).toBe(join(homedir(), 'bv.duckdb'));
    expect(parseConfig({ db: 'data/~bv.duckdb' }).db).toBe('data/~bv.duckdb');
  });

  it('lets the environment win over the file', () => {
    const dir = tempDir('config');
    try {
      const path = join(dir.path, 'c.json');
      writeFileSync(path, JSON.stringify({ brands: [9], api: { url: 'http://file.example' } }));
      const config = loadConfig({
        path,
        env: {
          BVSYNC_BRANDS: '1, 2',
          BVSYNC_API_URL: 'http://127.0.0.1:4010',
          BVSYNC_API_KEY: 'k-secret',
          BVSYNC_DB: '/tmp/x.duckdb',
        },
      });
      expect(config.brands).toEqual([1, 2]);
      expect(config.api.url).toBe('http://127.0.0.1:4010');
      expect(config.api.apiKey).toBe('k-secret');
      expect(config.db).toBe('/tmp/x.duckdb');
    } finally {
      dir.remove();
    }
  });

  it('names the environment variable a bad setting came from', () => {
    expect(() => loadConfig({ env: { BVSYNC_API_URL: 'not-a-url' } })).toThrow(
      /^the environment is not a valid bvsync config:\n {2}- api\.url \(from BVSYNC_API_URL\): /,
    );
    expect(() => loadConfig({ env: { BVSYNC_DUCKDB_THREADS: 'four' } })).toThrow(
      /- warehouse\.threads \(from BVSYNC_DUCKDB_THREADS\): /,
    );
  });

  it('refuses an API URL with a user or password, and never quotes it', () => {
    const load = () => loadConfig({ env: { BVSYNC_API_URL: 'http://u:pass-9f3q@127.0.0.1:4011' } });
    expect(load).toThrow(/- api\.url \(from BVSYNC_API_URL\): holds a user name or password, which bvsync never sends/);
    expect(load).not.toThrow(/pass-9f3q/);
    expect(() => parseConfig({ api: { url: 'https://robot@api.example.com' } })).toThrow(/api\.url: holds a user name/);
  });

  it('names a bad brand list and a file that is not JSON', () => {
    expect(() => loadConfig({ env: { BVSYNC_BRANDS: '1,x' } })).toThrow(/"x" is not a brand id/);
    const dir = tempDir('config');
    try {
      // A file was read, yet the bad list came from the environment: the message names the variable, not the file.
      const good = join(dir.path, 'good.json');
      writeFileSync(good, JSON.stringify({ brands: [9] }));
      expect(() => loadConfig({ path: good, env: { BVSYNC_BRANDS: '1,x' } })).toThrow(
        /^the environment \(BVSYNC_BRANDS\) is not a valid bvsync config:\n {2}- "x" is not a brand id/,
      );
      const path = join(dir.path, 'bad.json');
      writeFileSync(path, '{ "brands": [1,');
      expect(() => loadConfig({ path, env: {} })).toThrow(/not valid JSON/);
    } finally {
      dir.remove();
    }
  });
});

describe('a config that is not JSON', () => {
  const problem = (text: string) => {
    try {
      JSON.parse(text);
    } catch (error) {
      return jsonProblem(text, (error as Error).message);
    }
    throw new Error('parsed');
  };

  it('says where, and never quotes the text around the fault, where the key often is', () => {
    expect(problem('{\n "a": 1\n "b": 2}')).toBe(
      "not valid JSON at line 3, column 2: Expected ',' or '}' after property value",
    );
    expect(problem('{"brands": [1,2],}')).toBe(
      'not valid JSON at line 1, column 18: Expected double-quoted property name',
    );
    const unquoted = problem('{\n  "api": {\n    "apiKey": bvk_LEAKCHECK_123\n  }\n}');
    expect(unquoted).toBe("not valid JSON: Unexpected token 'b'");
    expect(unquoted).not.toContain('LEAK');
  });

  it('says a YAML file is not what bvsync reads', () => {
    expect(problem('api:\n  url: http://x')).toBe(
      "not valid JSON at line 1, column 1: Unexpected token 'a' (a bvsync config is one JSON object: docs/configuration.md)",
    );
  });
});

describe('the example config and the JSON Schema', () => {
  it('the example config shipped in the repo is valid', async () => {
    const { readFileSync } = await import('node:fs');
    const example = JSON.parse(readFileSync(new URL('../bvsync.config.example.json', import.meta.url), 'utf8'));
    const config = parseConfig(example, 'bvsync.config.example.json');
    expect(config.schedules.map((s) => s.name)).toEqual(['daily', 'catalogs']);
    expect(config.sync.swotStatementIds).toEqual({ '7': [70012] });
  });

  it('the JSON Schema describes every top-level key and forbids unknown ones', async () => {
    const { configJsonSchema } = await import('../src/cli/config-schema.js');
    const schema = configJsonSchema() as { properties: Record<string, unknown>; additionalProperties: unknown };
    expect(Object.keys(schema.properties).sort()).toEqual([
      '$schema',
      'api',
      'brands',
      'db',
      'metrics',
      'notify',
      'publish',
      'redis',
      'redisPrefix',
      'redisUrl',
      'schedules',
      'sync',
      'warehouse',
    ]);
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('days and schedules that cannot run', () => {
  it('refuses a day the calendar does not have, naming the file and the setting', () => {
    expect(() => parseConfig({ sync: { startDate: '2026-02-31' } }, 'bvsync.config.json')).toThrow(
      /^bvsync\.config\.json is not a valid bvsync config:\n\s+- sync\.startDate: "2026-02-31" is not a day of the calendar/,
    );
    expect(() => parseConfig({ sync: { startDate: '2026-2-3' } })).toThrow(
      /sync\.startDate: expected a day as YYYY-MM-DD$/m,
    );
    expect(parseConfig({ sync: { startDate: '2024-02-29' } }).sync.startDate).toBe('2024-02-29');
  });

  it('refuses a cron expression the scheduler would refuse, saying which field is wrong', () => {
    const schedules = [
      { name: 'ok', cron: '0 2 * * *' },
      { name: 'late', cron: '0 25 * * *' },
      { name: 'short', cron: '0 2 * *' },
      { name: 'never', cron: '0 2 31 2 *' },
      { name: 'words', cron: 'at two' },
      { name: 'weekday', cron: '0 2 * * 8' },
    ];
    let message = '';
    try {
      parseConfig({ schedules }, 'bvsync.config.json');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as ConfigError).message;
    }
    expect(message).toMatch(/^bvsync\.config\.json is not a valid bvsync config:/);
    expect(message).toContain(
      'schedules[1].cron: "0 25 * * *" is not a valid cron expression (hour "25": 25 is out of range 0-23)',
    );
    expect(message).toContain(
      'schedules[2].cron: "0 2 * *" is not a valid cron expression (expected 5 fields (or 6, with seconds first), got 4)',
    );
    expect(message).toContain(
      'schedules[3].cron: "0 2 31 2 *" is not a valid cron expression (invalid explicit day of month definition)',
    );
    expect(message).toContain('schedules[4].cron: "at two" is not a valid cron expression (expected 5 fields');
    expect(message).toContain(
      'schedules[5].cron: "0 2 * * 8" is not a valid cron expression (day of week "8": 8 is out of range 0-7)',
    );
    expect(message).not.toContain('schedules[0]');
  });

  it('accepts the cron forms the scheduler runs: seconds, names, steps', () => {
    const schedules = ['*/5 * * * * *', '0 2 * * MON', '15 */6 * * 1-5', '0 0 1 * *'].map((cron, i) => ({
      name: `s${i}`,
      cron,
    }));
    expect(parseConfig({ schedules }).schedules).toHaveLength(4);
  });

  it('names the file a bad day came from when it is loaded from disk', () => {
    const dir = tempDir('config');
    try {
      const path = join(dir.path, 'bvsync.config.json');
      writeFileSync(
        path,
        JSON.stringify({ sync: { startDate: '2026-04-31' }, schedules: [{ name: 'a', cron: '61 * * * *' }] }),
      );
      expect(() => loadConfig({ path, env: {} })).toThrow(
        /bvsync\.config\.json is not a valid bvsync config:\n(?=[\s\S]*sync\.startDate: "2026-04-31")(?=[\s\S]*schedules\[0\]\.cron: "61 \* \* \* \*" is not a valid cron expression \(minute "61": 61 is out of range 0-59\))/,
      );
    } finally {
      dir.remove();
    }
  });
});

describe('hostile config values', () => {
  it('refuses a domain that is no host name, naming it', () => {
    expect(() =>
      parseConfig({ sync: { domains: ['example.com', '../../etc/passwd', 'a.com/x?y#z'] } }, 'c.json'),
    ).toThrow(/sync\.domains\[1\]: "\.\.\/\.\.\/etc\/passwd" is not a domain/);
  });

  it('accepts international and odd-but-valid domains', () => {
    const config = parseConfig({
      sync: { domains: ['bücher.example', 'WWW.Example.COM', 'https://news.example.org/path'] },
    });
    expect(config.sync.domains).toHaveLength(3);
  });
});

describe('the brands', () => {
  it('says what a list of brand ids looks like, where the config gave something else', () => {
    expect(() => parseConfig({ brands: 'abc' })).toThrow(/brands: expected a list of brand ids, such as \[7, 12\]/);
    expect(() => parseConfig({ brands: ['7'] })).toThrow(/brands\[0\]: a brand id is a whole number, such as 7/);
    expect(() => parseConfig({ brands: [7, 7] })).toThrow(/a brand id is listed twice/);
  });
});

describe('the API key', () => {
  it('refuses one with a line break, a space or another control character, naming where it came from', () => {
    expect(() => loadConfig({ env: { BVSYNC_API_KEY: 'bvk_live_123\n' } })).toThrow(
      /api\.apiKey \(from BVSYNC_API_KEY\): holds a space, a line break/,
    );
    expect(() => loadConfig({ env: { BVSYNC_API_KEY: 'bvk_live_123\r' } })).toThrow(/line break/);
    expect(() => loadConfig({ env: { BVSYNC_API_KEY: ' bvk_live_123' } })).toThrow(/line break/);
    // Pasted from a document: curly quotes, a zero-width space; undici refused every request, and a sync waited on.
    for (const pasted of ['\u201cbvk_live_123\u201d', 'bvk_live_123\u200b'])
      expect(() => loadConfig({ env: { BVSYNC_API_KEY: pasted } })).toThrow(/a curly quote or another character/);
    expect(loadConfig({ env: { BVSYNC_API_KEY: 'bvk_live_123' } }).api.apiKey).toBe('bvk_live_123');
  });

  it('never shows the key in the message', () => {
    expect(() => loadConfig({ env: { BVSYNC_API_KEY: 'bvk_secret_987\n' } })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret_987') }),
    );
  });
});

describe('the Redis URL', () => {
  it('takes redis:// and rediss:// URLs and a socket path, and names anything else without quoting it (it may hold a password)', () => {
    for (const url of [
      'redis://127.0.0.1:6379',
      'redis://:pass@redis.internal:6380/2',
      'rediss://cache.example.com',
      '/run/redis/redis.sock',
    ]) {
      expect(loadConfig({ env: { REDIS_URL: url } }).redisUrl, url).toBe(url);
    }
    for (const url of ['redis//127.0.0.1:6379', 'http://127.0.0.1:6379', '127.0.0.1:6379', 'redis://:s3cret@']) {
      expect(() => loadConfig({ env: { REDIS_URL: url } }), url).toThrow(
        /redisUrl \(from REDIS_URL\): expected a redis:\/\/ or rediss:\/\/ URL/,
      );
      expect(() => loadConfig({ env: { REDIS_URL: url } }), url).toThrow(
        expect.objectContaining({ message: expect.not.stringContaining('s3cret') }),
      );
    }
  });
});

describe('the Redis topology', () => {
  it('takes a Sentinel address from REDIS_URL or from redis.sentinels and redis.name, with a password and a database', () => {
    const url = 'redis+sentinel://:s3cret@h1:26379,h2:26380/mymaster/2';
    expect(loadConfig({ env: { REDIS_URL: url } }).redisUrl).toBe(url);
    const fromConfig = parseConfig({
      redis: { sentinels: ['h1:26379', 'h2:26380'], name: 'mymaster', db: 2, password: 's3cret' },
    });
    expect(parseRedisAddress(fromConfig.redisUrl!)).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 'h1', port: 26379 },
        { host: 'h2', port: 26380 },
      ],
      name: 'mymaster',
      database: 2,
      tls: false,
      password: 's3cret',
    });
    expect(describeRedisAddress(fromConfig.redisUrl!)).toBe('redis+sentinel://:***@h1:26379,h2:26380/mymaster/2');
  });

  it('gives REDIS_PASSWORD to a socket path in its query, and refuses it beside a ?password=', () => {
    const socket = loadConfig({ env: { REDIS_URL: '/run/redis.sock', REDIS_PASSWORD: 'sock/pw' } }).redisUrl!;
    expect(parseRedisAddress(socket)).toMatchObject({ url: '/run/redis.sock', password: 'sock/pw' });
    expect(() => loadConfig({ env: { REDIS_URL: 'redis://h?password=a1b2', REDIS_PASSWORD: 'c3d4' } })).toThrow(
      /redis\.password \(from REDIS_PASSWORD\): is set and REDIS_URL names a user or password too: give the password once/,
    );
  });

  it('takes a Cluster address only with a hash-tagged prefix, and says which prefix to set', () => {
    expect(() => loadConfig({ env: { REDIS_URL: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7000' } })).toThrow(
      /redisPrefix: a Redis Cluster needs a prefix with a hash tag, so that every key of a run is in one slot: set BVSYNC_REDIS_PREFIX=\{bvsync\}/,
    );
    const config = loadConfig({
      env: { REDIS_URL: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7000', BVSYNC_REDIS_PREFIX: '{bvsync}' },
    });
    expect(parseRedisAddress(config.redisUrl!)).toMatchObject({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7000 },
      ],
    });
    expect(parseConfig({ redis: { cluster: ['n1:7000'] }, redisPrefix: 'bv{prod}' }).redisUrl).toBe(
      'redis+cluster://n1:7000',
    );
    expect(() => parseConfig({ redisPrefix: '{a}{b}' })).toThrow(
      /redisPrefix: letters, digits, _ and - only, with at most one hash tag/,
    );
    expect(() => parseConfig({ redisPrefix: 'a{}' })).toThrow(/redisPrefix/);
  });

  it('puts REDIS_CA_FILE into a rediss:// address, and refuses it beside a redis:// one', () => {
    const config = loadConfig({
      env: { REDIS_URL: 'rediss://cache.example.com:6380', REDIS_CA_FILE: '/etc/ssl/redis-ca.pem' },
    });
    expect(parseRedisAddress(config.redisUrl!)).toMatchObject({
      kind: 'standalone',
      tls: true,
      caFile: '/etc/ssl/redis-ca.pem',
    });
    expect(
      parseRedisAddress(
        parseConfig({ redis: { sentinels: ['h:26379'], name: 'm', tls: { caFile: '/ca.pem' } } }).redisUrl!,
      ),
    ).toMatchObject({ kind: 'sentinel', tls: true, caFile: '/ca.pem' });
    expect(() => loadConfig({ env: { REDIS_URL: 'redis://cache.example.com', REDIS_CA_FILE: '/ca.pem' } })).toThrow(
      /redis\.tls\.caFile \(from REDIS_CA_FILE\): a CA file is set \(\/ca\.pem\) but REDIS_URL starts with redis:\/\/, without TLS: use rediss:\/\//,
    );
  });

  it('names settings that contradict each other', () => {
    expect(() => parseConfig({ redis: { sentinels: ['h:26379'] } })).toThrow(
      /redis\.name: the Sentinels need the name of the master/,
    );
    expect(() => parseConfig({ redis: { name: 'm' } })).toThrow(
      /redis\.sentinels: a master name \("m"\) is given without the Sentinels/,
    );
    expect(() => parseConfig({ redisUrl: 'redis://h:6379', redis: { sentinels: ['h:26379'], name: 'm' } })).toThrow(
      /redis: names sentinels and redisUrl \(REDIS_URL\) is set too: set one of them/,
    );
    expect(() => parseConfig({ redis: { sentinels: ['h'], name: 'm' } })).toThrow(
      /redis\.sentinels\[0\]: expected host:port/,
    );
    expect(() => loadConfig({ env: { REDIS_URL: 'redis+sentinel://h1:26379' } })).toThrow(
      /redisUrl \(from REDIS_URL\): a redis\+sentinel:\/\/ address names its master after the Sentinels/,
    );
  });
});

describe('the Redis prefix', () => {
  it('takes BVSYNC_REDIS_PREFIX over the default, and names one with characters a key cannot carry', () => {
    expect(loadConfig({ env: {} }).redisPrefix).toBe('bvsync');
    expect(loadConfig({ env: { BVSYNC_REDIS_PREFIX: 'demo' } }).redisPrefix).toBe('demo');
    expect(() => loadConfig({ env: { BVSYNC_REDIS_PREFIX: 'a:b' } })).toThrow(
      /redisPrefix \(from BVSYNC_REDIS_PREFIX\)/,
    );
  });
});

describe("the warehouse's DuckDB budget", () => {
  it('defaults to 160MB and 1 thread, and takes BVSYNC_DUCKDB_MEMORY_LIMIT and BVSYNC_DUCKDB_THREADS over the file', () => {
    expect(parseConfig({}).warehouse).toEqual({ memoryLimit: '160MB', threads: 1 });
    expect(parseConfig({}).warehouse).toEqual(DEFAULT_DUCKDB_BUDGET);
    const config = loadConfig({ env: { BVSYNC_DUCKDB_MEMORY_LIMIT: '1GB', BVSYNC_DUCKDB_THREADS: '4' } });
    expect(config.warehouse).toEqual({ memoryLimit: '1GB', threads: 4 });
  });

  it('names a size DuckDB would not read and a thread count that is not a number', () => {
    expect(() => parseConfig({ warehouse: { memoryLimit: 'lots' } }, 'c.json')).toThrow(
      /warehouse\.memoryLimit.*256MB or 1GB/s,
    );
    expect(() => loadConfig({ env: { BVSYNC_DUCKDB_THREADS: 'two' } })).toThrow(/warehouse\.threads/);
  });
});

describe('secrets in a config', () => {
  it('masks webhook URLs and a Pushgateway password once parsed, as it masks the key', () => {
    const hook = 'https://hooks.example.invalid/services/T0/B0/hook-canary';
    parseConfig({
      notify: { webhooks: [{ url: hook, events: ['run_failed'] }] },
      metrics: { pushgateway: 'http://pusher:push%2Fcanary@pushgateway:9091' },
    });
    expect(redactSecrets(`posted to ${hook}; pushed as pusher:push%2Fcanary, or push/canary`)).toBe(
      'posted to [REDACTED]; pushed as pusher:[REDACTED], or [REDACTED]',
    );
    // A lone % passes the URL check; the config still loads, and the password as written is masked.
    parseConfig({ metrics: { pushgateway: 'http://pusher:100%canary@pushgateway:9091' } });
    expect(redactSecrets('pushed as pusher:100%canary')).toBe('pushed as pusher:[REDACTED]');
  });

  it("masks a Redis password given in the address's query, decoded and as written", () => {
    parseConfig({ redisUrl: 'redis://h:6379/0?password=query%2fcanary' });
    expect(redactSecrets('query/canary, query%2fcanary, query%2Fcanary')).toBe('[REDACTED], [REDACTED], [REDACTED]');
  });
});
