import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSecretFile } from '../../src/config/secret-file.js';
import { redactSecrets } from '../../src/log.js';
import { tempDir } from '../support/tmp.js';
import { loadConfig } from '../../src/configuration.js';

const dir = tempDir('secret-file');
afterAll(() => dir.remove());

/** A secret file of the given mode. */
function secretFile(name: string, content: string, mode = 0o600): string {
  const path = join(dir.path, name);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

describe('secrets from files', () => {
  it('reads BVSYNC_API_KEY_FILE and REDIS_URL_FILE, their trailing line break trimmed, and names the variable in a problem', () => {
    const warnings: string[] = [];
    const config = loadConfig({
      env: {
        BVSYNC_API_KEY_FILE: secretFile('key', 'bvk_file_key_4821\n'),
        REDIS_URL_FILE: secretFile('redis', 'redis://:pw_from_file_77@cache:6380/2\r\n'),
      },
      warn: (message) => warnings.push(message),
    });
    expect(config.api.apiKey).toBe('bvk_file_key_4821');
    expect(config.redisUrl).toBe('redis://:pw_from_file_77@cache:6380/2');
    expect(warnings).toEqual([]);
    // Registered: a log line or an error carrying either is masked.
    expect(redactSecrets('key bvk_file_key_4821, password pw_from_file_77')).toBe(
      'key [REDACTED], password [REDACTED]',
    );
    expect(() => loadConfig({ env: { BVSYNC_API_KEY_FILE: secretFile('spaced', 'bvk_two words\n') } })).toThrow(
      /api\.apiKey \(from BVSYNC_API_KEY_FILE\): holds a space/,
    );
  });

  it('refuses the variable and its _FILE both set, naming both', () => {
    const env = { BVSYNC_API_KEY: 'bvk_env_key', BVSYNC_API_KEY_FILE: secretFile('both', 'bvk_file_key') };
    expect(() => loadConfig({ env })).toThrow(/BVSYNC_API_KEY and BVSYNC_API_KEY_FILE are both set: unset one/);
    expect(() =>
      loadConfig({ env: { REDIS_URL: 'redis://a:1', REDIS_URL_FILE: secretFile('both-redis', 'redis://b:2') } }),
    ).toThrow(/REDIS_URL and REDIS_URL_FILE are both set/);
  });

  it('refuses a file that is missing, empty or a folder, naming the variable and the path but never the content', () => {
    expect(() => loadConfig({ env: { BVSYNC_API_KEY_FILE: join(dir.path, 'absent') } })).toThrow(
      /BVSYNC_API_KEY_FILE \(.*absent\): cannot read the file \(ENOENT\)/,
    );
    expect(() => loadConfig({ env: { BVSYNC_API_KEY_FILE: secretFile('empty', '\n') } })).toThrow(
      /BVSYNC_API_KEY_FILE \(.*empty\): the file is empty/,
    );
    const folder = join(dir.path, 'folder');
    mkdirSync(folder);
    expect(() => loadConfig({ env: { REDIS_URL_FILE: folder } })).toThrow(/REDIS_URL_FILE \(.*folder\): not a file/);
  });

  it('warns of a file every user may read, naming the file and its mode, never the content', () => {
    const warnings: string[] = [];
    const path = secretFile('open', 'bvk_open_key_99\n', 0o644);
    expect(readSecretFile(path, 'BVSYNC_API_KEY_FILE', { warn: (message) => warnings.push(message) })).toBe(
      'bvk_open_key_99',
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(path);
    expect(warnings[0]).toMatch(/readable by every user \(mode 0644\): chmod 600 it/);
    expect(warnings[0]).not.toContain('bvk_open_key_99');
  });

  it('takes a file its own group may read (a Kubernetes fsGroup) without a warning', () => {
    const warnings: string[] = [];
    readSecretFile(secretFile('group', 'bvk_group_key', 0o640), 'BVSYNC_API_KEY_FILE', {
      warn: (message) => warnings.push(message),
    });
    expect(warnings).toEqual([]);
  });

  // Giving a file to a group one is not in takes root.
  it.runIf(process.getuid?.() === 0)('warns of a file another group may read', () => {
    const warnings: string[] = [];
    const path = secretFile('other-group', 'bvk_other_group_key', 0o640);
    chownSync(path, 0, 4242);
    readSecretFile(path, 'REDIS_URL_FILE', { warn: (message) => warnings.push(message) });
    expect(warnings).toEqual([
      expect.stringMatching(/REDIS_URL_FILE \(.*other-group\) is readable by another group \(mode 0640\)/),
    ]);
  });
});
