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

/** A duration the page writes with its unit (`250 ms`, `20 s`) in the milliseconds a `...Ms` setting holds. */
function inMilliseconds(name: string, given: string): string {
  const duration = /^([\d.,]+) (ms|s)$/.exec(given);
  if (!name.endsWith('Ms') || !duration) return given;
  return String(Number(duration[1]!.replace(/,/g, '')) * (duration[2] === 's' ? 1000 : 1));
}

/**
 * The settings a row names, with the default it gives each: one setting and its default, or several
 * (`api.maxAttempts`, `retryBaseMs`) with as many defaults (`5, 250 ms`). A bare name takes the first one's section.
 */
function statedDefaults(cells: Row): { name: string; given: string }[] {
  const names = [...cells[0]!.matchAll(/`([\w.]+)`/g)]
    .map((match) => match[1]!)
    .filter((name) => !/^[A-Z_]+$/.test(name));
  const section = names[0]?.includes('.') ? names[0].slice(0, names[0].lastIndexOf('.') + 1) : '';
  const full = names.map((name) => (name.includes('.') ? name : `${section}${name}`));
  const givens = full.length === 1 ? [cells[1]!] : cells[1]!.split(/ \/ |, /);
  if (givens.length !== full.length) return [];
  return full.flatMap((name, index) => {
    const given = literalDefault(inMilliseconds(name, givens[index]!.trim()));
    return given === undefined ? [] : [{ name, given }];
  });
}

const stated = settingRows('docs/configuration.md').flatMap(statedDefaults);

describe('the defaults docs/configuration.md states', () => {
  it('are found: each setting of a row with a literal default', () => {
    expect(stated.length).toBeGreaterThanOrEqual(47);
    expect(stated.filter(({ name }) => !reference.has(name)).map(({ name }) => name)).toEqual([]);
  });

  it("are the schema's", () => {
    const wrong = stated
      .filter(({ name, given }) => normal(given) !== normal(reference.get(name) ?? ''))
      .map(({ name, given }) => `${name}: the page says ${given}, the schema ${reference.get(name) || 'none'}`);
    expect(wrong).toEqual([]);
  });
});
