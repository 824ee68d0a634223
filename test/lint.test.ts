import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** `npm run lint` is Biome's formatter and linter over src, test and bench (biome.jsonc): CI fails on any finding. */
describe('npm run lint', () => {
  it('finds nothing to format or fix', () => {
    const result = spawnSync(
      process.execPath,
      ['node_modules/@biomejs/biome/bin/biome', 'check', '--max-diagnostics=20', '.'],
      {
        encoding: 'utf8',
      },
    );
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/Found \d+ (errors?|warnings?|infos?)/);
    expect(result.status).toBe(0);
  }, 120_000);
});
