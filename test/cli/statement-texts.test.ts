import { describe, expect, it } from 'vitest';
import { statementHeadline, statementTexts } from '../../src/cli/read/statement-texts.js';

describe('statementTexts', () => {
  it('splits on semicolons outside quotes and comments, and drops comments and blank statements', () => {
    const sql = [
      '-- Question: two answers; or three?',
      'SELECT \'a;b\' AS "x;y"; /* a ; comment */',
      ';',
      "SELECT 'it''s; fine' -- trailing; comment",
      '',
    ].join('\n');
    expect(statementTexts(sql)).toEqual(['SELECT \'a;b\' AS "x;y"', "SELECT 'it''s; fine'"]);
  });

  it('finds no statement in comments and blanks alone', () => {
    expect(statementTexts('-- only a comment\n/* and another */\n ;\n')).toEqual([]);
    expect(statementTexts('')).toEqual([]);
  });
});

describe('statementHeadline', () => {
  it('is the first line, cut to its width', () => {
    expect(statementHeadline('\n  SELECT run_id, kind\nFROM _sync_runs')).toBe('SELECT run_id, kind');
    expect(statementHeadline(`SELECT ${'x, '.repeat(40)}y`, 20)).toBe('SELECT x, x, x, x, …');
  });
});
