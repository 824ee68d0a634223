import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../src/streams/stream-names.js';

/**
 * docs/tables.md's first table names, by hand, each stream and the tables it fills. Every stream must have a row, and
 * every table a row names must be one docs/reference/tables.md lists (generated from the migrations).
 */

/** The tables analysts read: the reference's "Tables" section, less bvsync's own (`_sync_state`...). */
const reference = readFileSync('docs/reference/tables.md', 'utf8');
const tablesKnown = new Set(
  [
    ...reference
      .slice(reference.indexOf('## Tables'), reference.indexOf('## Views'))
      .matchAll(/^### `([a-z][a-z_]*)`/gm),
  ].map((match) => match[1]),
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
  it('has a row for every stream, and names no other', () => {
    const named = rows.flatMap((cells) => [...cells[0]!.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!));
    expect(STREAM_NAMES.filter((stream) => !named.includes(stream))).toEqual([]);
    expect(named.filter((name) => !(STREAM_NAMES as readonly string[]).includes(name))).toEqual([]);
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
