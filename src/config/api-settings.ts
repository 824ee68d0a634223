import { ConfigError } from './load.js';
import type { ApiConfig } from './schema.js';

/** The key's and the URL's settings as messages that stop a command name them, never with their values. */
export const KEY_SETTING = 'BVSYNC_API_KEY, or the file BVSYNC_API_KEY_FILE names (config "api.apiKey")';
export const URL_SETTING = 'BVSYNC_API_URL (config "api.url")';

/**
 * The API settings nothing that calls the API can run without, each named as the config file spells it and with its
 * environment variable: the one check the commands, `doctor` and the API client share, so they say it alike.
 */
export function missingApiSettings(api: ApiConfig): string[] {
  const missing: string[] = [];
  if (!api.url) missing.push('api.url (BVSYNC_API_URL)');
  if (!api.apiKey) missing.push('api.apiKey (BVSYNC_API_KEY)');
  return missing;
}

/** The API's URL and key, or a `ConfigError` naming each one missing. */
export function requireApiSettings(api: ApiConfig): ApiConfig & { url: string; apiKey: string } {
  const missing = missingApiSettings(api);
  if (missing.length || !api.url || !api.apiKey)
    throw new ConfigError(
      'the API config',
      missing.map((setting) => `${setting}: required to call the API`),
    );
  return { ...api, url: api.url, apiKey: api.apiKey };
}
