import { describe, expect, it } from 'vitest';
import { ConfigError, loadProcessSettings } from '../src/config/load.js';
import { missingApiSettings, requireApiSettings } from '../src/config/api-settings.js';
import { commandToday, workerTimings } from '../src/cli/context.js';
import { configSchema } from '../src/configuration.js';

/** The API settings of a config that sets none: every default, no URL, no key. */
const unset = configSchema.parse({}).api;

describe('process settings from the environment', () => {
  it('reads the timings, the log level and the debug switch; unset or empty keeps the defaults', () => {
    expect(
      loadProcessSettings({
        BVSYNC_LEASE_TTL_MS: '1500',
        BVSYNC_JOB_LOCK_MS: '2000',
        BVSYNC_REDIS_OUTAGE_MS: '90000',
        BVSYNC_LOG_LEVEL: 'debug',
        BVSYNC_DEBUG: '1',
      }),
    ).toEqual({
      leaseTtlMs: 1500,
      jobLockMs: 2000,
      redisOutageMs: 90_000,
      logLevel: 'debug',
      debug: true,
    });
    expect(loadProcessSettings({ BVSYNC_LEASE_TTL_MS: '', BVSYNC_LOG_LEVEL: '' })).toEqual({
      leaseTtlMs: undefined,
      jobLockMs: undefined,
      logLevel: undefined,
      debug: false,
    });
  });

  it('names every timing that is no whole number of milliseconds in range', () => {
    const read = () =>
      loadProcessSettings({ BVSYNC_LEASE_TTL_MS: 'soon', BVSYNC_JOB_LOCK_MS: '100', BVSYNC_REDIS_OUTAGE_MS: '-1' });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(
      /BVSYNC_LEASE_TTL_MS="soon" is not a whole number of milliseconds[\s\S]*BVSYNC_JOB_LOCK_MS="100"[\s\S]*BVSYNC_REDIS_OUTAGE_MS="-1"/,
    );
  });

  it('reads BVSYNC_TODAY as the day commands take as today, and refuses what is no calendar day', () => {
    expect(loadProcessSettings({ BVSYNC_TODAY: '2026-11-20' }).today).toBe('2026-11-20');
    expect(loadProcessSettings({ BVSYNC_TODAY: '' }).today).toBeUndefined();
    expect(commandToday(loadProcessSettings({ BVSYNC_TODAY: '2026-11-20' }))).toBe('2026-11-20');
    expect(workerTimings(loadProcessSettings({ BVSYNC_TODAY: '2026-11-20' })).today?.()).toBe('2026-11-20');
    expect(() => loadProcessSettings({ BVSYNC_TODAY: '2026-02-30' })).toThrow(
      /BVSYNC_TODAY="2026-02-30" is not a day; give YYYY-MM-DD/,
    );
  });
});

describe('the API settings check', () => {
  it('names each missing setting with its environment variable, once for every caller', () => {
    expect(missingApiSettings(unset)).toEqual(['api.url (BVSYNC_API_URL)', 'api.apiKey (BVSYNC_API_KEY)']);
    expect(() => requireApiSettings({ ...unset, url: 'http://127.0.0.1:1' })).toThrow(
      /api\.apiKey \(BVSYNC_API_KEY\): required/,
    );
  });
});
