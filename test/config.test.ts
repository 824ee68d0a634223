import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../src/config/load.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './support/tmp.js';

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
      parseConfig({ api: { arrayFormat: 'csv', params: { pagesize: 'ps' } }, brands: [1, 1], sync: { streams: ['nope'] } }, 'x.json');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).toContain('x.json is not a valid bvsync config');
      expect(message).toContain('api.arrayFormat');
      expect(message).toContain('api.params.pagesize');
      expect(message).toContain('sync.streams.0');
      expect(message).toContain('brands');
    }
  });

  it('lets the environment win over the file', () => {
    const dir = tempDir('config');
    try {
      const path = join(dir.path, 'c.json');
      writeFileSync(path, JSON.stringify({ brands: [9], api: { url: 'http://file.example' } }));
      const config = loadConfig({
        path,
        env: { BVSYNC_BRANDS: '1, 2', BVSYNC_API_URL: 'http://127.0.0.1:4010', BVSYNC_API_KEY: 'k-secret', BVSYNC_DB: '/tmp/x.duckdb' },
      });
      expect(config.brands).toEqual([1, 2]);
      expect(config.api.url).toBe('http://127.0.0.1:4010');
      expect(config.api.apiKey).toBe('k-secret');
      expect(config.db).toBe('/tmp/x.duckdb');
    } finally {
      dir.remove();
    }
  });

  it('names a bad brand list and a file that is not JSON', () => {
    expect(() => loadConfig({ env: { BVSYNC_BRANDS: '1,x' } })).toThrow(/"x" is not a brand id/);
    const dir = tempDir('config');
    try {
      const path = join(dir.path, 'bad.json');
      writeFileSync(path, '{ "brands": [1,');
      expect(() => loadConfig({ path, env: {} })).toThrow(/not valid JSON/);
    } finally {
      dir.remove();
    }
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
    expect(Object.keys(schema.properties).sort()).toEqual(['$schema', 'api', 'brands', 'db', 'redisPrefix', 'redisUrl', 'schedules', 'sync']);
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('hostile config values', () => {
  it('refuses a domain that is no host name, naming it', () => {
    expect(() => parseConfig({ sync: { domains: ['example.com', '../../etc/passwd', 'a.com/x?y#z'] } }, 'c.json')).toThrow(
      /sync\.domains\.1: "\.\.\/\.\.\/etc\/passwd" is not a domain/,
    );
  });

  it('accepts international and odd-but-valid domains', () => {
    const config = parseConfig({ sync: { domains: ['bücher.example', 'WWW.Example.COM', 'https://news.example.org/path'] } });
    expect(config.sync.domains).toHaveLength(3);
  });
});
