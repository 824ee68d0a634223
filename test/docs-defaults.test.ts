import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * docs/configuration.md states the defaults of its settings by hand: each must be what the schema says, as
 * docs/reference/configuration.md prints it from the schema (test/docs-generated.test.ts keeps that page current).
 */

type Row = string[];

function settingRows(file: string): Row[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| /, '').trim()));
}

/** A default as words compare it: no backticks, quotes or spaces, no thousands commas; an absent list or map is empty. */
function normal(value: string): string {
  const plain = value.replace(/[`"\s]/g, '').replace(/(\d),(\d{3})/g, '$1$2');
  return plain === '[]' || plain === '{}' || plain === 'none' || plain === '—' ? '' : plain;
}

/** The default cell of a row, when it is a literal rather than prose ("the brand's engines, learned"). */
function literalDefault(cell: string): string | undefined {
  return /^(`[^`]*`|-?\d[\d_.,]*|true|false|none|—)$/.test(cell) ? cell : undefined;
}

const reference = new Map(
  settingRows('docs/reference/configuration.md').map((cells) => [cells[0]!.replace(/`/g, ''), cells[2]!]),
);
const stated = settingRows('docs/configuration.md').flatMap((cells) => {
  const name = /^`([\w.]+)`(?: \/ `?[A-Z_]+`?)?$/.exec(cells[0]!)?.[1];
  const given = literalDefault(cells[1]!);
  return name && given !== undefined ? [{ name, given }] : [];
});

describe('the defaults docs/configuration.md states', () => {
  it('are found: a row per setting with a literal default', () => {
    expect(stated.length).toBeGreaterThanOrEqual(36);
    expect(stated.filter(({ name }) => !reference.has(name)).map(({ name }) => name)).toEqual([]);
  });

  it("are the schema's", () => {
    const wrong = stated
      .filter(({ name, given }) => normal(given) !== normal(reference.get(name) ?? ''))
      .map(({ name, given }) => `${name}: the page says ${given}, the schema ${reference.get(name) || 'none'}`);
    expect(wrong).toEqual([]);
  });
});
