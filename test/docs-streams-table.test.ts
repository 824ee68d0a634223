import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../src/streams/stream-names.js';

/**
 * docs/tables.md's first table names, by hand, each stream and the tables it fills. Every stream must have a row, and
 * every table a row names must be one docs/reference/tables.md lists (generated from the migrations).
 */

const tablesKnown = new Set(
  [...readFileSync('docs/reference/tables.md', 'utf8').matchAll(/^### `([a-z_]+)`/gm)].map((match) => match[1]),
);

/** `visibility_{topic,scenario}[_brand]_daily` as the four names it stands for. */
function expand(pattern: string): string[] {
  const group = /\{([^}]+)\}/.exec(pattern) ?? /\[([^\]]+)\]/.exec(pattern);
  if (!group) return [pattern];
  const choices = group[0].startsWith('{') ? group[1]!.split(',') : ['', group[1]!];
  return choices.flatMap((choice) => expand(pattern.replace(group[0], choice)));
}

const page = readFileSync('docs/tables.md', 'utf8');
const firstTable = page.slice(page.indexOf('| stream |')).split('\n\n')[0]!;
const rows = firstTable
  .split('\n')
  .slice(2)
  .map((line) => line.split(' | '));

describe("docs/tables.md's table of streams", () => {
  it('has a row for every stream', () => {
    const named = new Set(rows.flatMap((cells) => [...cells[0]!.matchAll(/`([a-z_]+)`/g)].map((match) => match[1])));
    expect(STREAM_NAMES.filter((stream) => !named.has(stream))).toEqual([]);
  });

  it('names only tables the migrations create', () => {
    // Words in parentheses are columns, such as `citation_daily` (`dimension`, `value`).
    const tables = rows.flatMap((cells) =>
      [
        ...cells
          .at(-1)!
          .replace(/\([^)]*\)/g, '')
          .matchAll(/`([a-z_{},[\]]+)`/g),
      ].flatMap((match) => expand(match[1]!)),
    );
    expect(tables.length).toBeGreaterThan(30);
    expect(tables.filter((table) => !tablesKnown.has(table))).toEqual([]);
  });
});
