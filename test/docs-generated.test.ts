import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliReference } from '../scripts/cli-reference.js';
import { configReference } from '../scripts/config-reference.js';
import { tablesReference } from '../scripts/tables-reference.js';

/** Reference pages made from the code cannot drift from it: `npm run docs` writes them, this test compares. */
describe('generated reference pages', () => {
  it('docs/reference/configuration.md is what the config schema says (else run npm run docs)', () => {
    expect(readFileSync('docs/reference/configuration.md', 'utf8')).toBe(configReference());
  }, 60_000);

  it('docs/reference/cli.md is what the commands say (else run npm run docs)', async () => {
    expect(readFileSync('docs/reference/cli.md', 'utf8')).toBe(await cliReference());
  }, 60_000);

  it('docs/reference/tables.md is what sql/ makes (else run npm run docs)', async () => {
    expect(readFileSync('docs/reference/tables.md', 'utf8')).toBe(await tablesReference());
  }, 60_000);

  it('lists every setting of the schema with its default, e.g. sync.lookbackDays', () => {
    expect(configReference()).toMatch(/\| `sync\.lookbackDays` \| integer \| `3` \| 0 to 90 \| Days re-fetched/);
  }, 60_000);
});
