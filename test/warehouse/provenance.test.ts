import { describe, expect, it } from 'vitest';
import {
  appliedQuery,
  echoedEngines,
  engineNotApplied,
  enginesDropped,
  queryEchoOf,
  rangeNotApplied,
} from '../../src/warehouse/provenance.js';

describe('the query echo of an answer', () => {
  it('is info.query when it is an object, and nothing otherwise', () => {
    expect(queryEchoOf({ query: { engines: ['a'] }, total_rows: 2 })).toEqual({ engines: ['a'] });
    for (const info of [undefined, null, 3, {}, { query: null }, { query: ['a'] }, { query: 'engines=a' }]) {
      expect(queryEchoOf(info), JSON.stringify(info)).toBeUndefined();
    }
  });

  it('names its engines under the wire name of the engines parameter, only when they are strings', () => {
    expect(echoedEngines({ engines: ['chatgpt', 'gemini'] }, 'engines')).toEqual(['chatgpt', 'gemini']);
    expect(echoedEngines({ models: ['chatgpt'] }, 'models')).toEqual(['chatgpt']);
    expect(echoedEngines({ models: ['chatgpt'] }, 'engines')).toBeNull();
    expect(echoedEngines({ engines: [1, 2] }, 'engines')).toBeNull();
    expect(echoedEngines({ engines: { chatgpt: true } }, 'engines')).toBeNull();
  });

  it('reads an echo that names its engines as the text it was sent, ids separated by commas', () => {
    expect(echoedEngines({ engines: 'chatgpt, gemini' }, 'engines')).toEqual(['chatgpt', 'gemini']);
    expect(echoedEngines({ engines: 'chatgpt' }, 'engines')).toEqual(['chatgpt']);
    expect(echoedEngines({ engines: '' }, 'engines')).toEqual([]);
    // Read as no list, a per-engine slice answered for every engine loaded under one engine's name.
    expect(engineNotApplied({ engines: 'gemini,chatgpt' }, 'engines', 'chatgpt')).toMatch(
      /says it applied \["gemini","chatgpt"\]/,
    );
  });

  it('names the ids sent that the echo leaves out, in any letter case, only when both lists are there', () => {
    expect(enginesDropped({ engines: ['ChatGPT'], sentEngines: ['chatgpt', 'gpt-4o'] })).toEqual(['gpt-4o']);
    expect(enginesDropped({ engines: ['chatgpt', 'gemini'], sentEngines: ['chatgpt'] })).toEqual([]);
    expect(enginesDropped({ engines: null, sentEngines: ['chatgpt'] })).toEqual([]);
    expect(enginesDropped({ engines: [], sentEngines: ['chatgpt'] })).toEqual([]);
    expect(enginesDropped({ engines: ['chatgpt'], sentEngines: null })).toEqual([]);
  });

  it("says a per-engine answer is not its engine's only when the echo names another engine", () => {
    for (const engines of [['chatgpt'], ['ChatGPT'], ['chatgpt', 'chatgpt'], [], undefined, [1]]) {
      expect(engineNotApplied({ engines }, 'engines', 'chatgpt'), JSON.stringify(engines)).toBeUndefined();
    }
    expect(engineNotApplied({ models: ['gemini', 'chatgpt'] }, 'models', 'chatgpt')).toMatch(
      /^asked for engine "chatgpt" alone, the answer's info\.query says it applied \["gemini","chatgpt"\]/,
    );
    expect(engineNotApplied({ engines: ['gemini'] }, 'engines', 'chatgpt')).toBeDefined();
  });

  it("says a day slice's answer covers another range only when its echo names instants off the UTC day", () => {
    const day = { from: '2026-11-18', to: '2026-11-18' };
    const wire = { start: 'start_date', end: 'end_date' };
    const right = [
      {},
      { start_date: '2026-11-18', end_date: '2026-11-18' },
      { start_date: '2026-11-18T00:00:00Z', end_date: '2026-11-18T23:59:59.999Z' },
      { start_date: '2026-11-18 00:00:00', end_date: '2026-11-18T23:59' },
      // Half-open: the instant after the day.
      { start_date: '2026-11-18T00:00:00+00:00', end_date: '2026-11-19T00:00:00Z' },
      // The end at the day's first instant is doctor's to settle, and a value that is no day says nothing.
      { start_date: '2026-11-18', end_date: '2026-11-18T00:00:00Z' },
      { start_date: 'yesterday', end_date: 17 },
    ];
    for (const query of right) expect(rangeNotApplied(query, day, wire), JSON.stringify(query)).toBeUndefined();
    expect(
      rangeNotApplied({ start_date: '2026-11-18T00:00:00-05:00', end_date: '2026-11-18T23:59:59-05:00' }, day, wire),
    ).toMatch(
      /^the answer's info\.query says the API applied start_date=2026-11-18 as "2026-11-18T00:00:00-05:00" and end_date=2026-11-18 as "2026-11-18T23:59:59-05:00", not the UTC day asked for/,
    );
    expect(rangeNotApplied({ from: '2026-11-17' }, day, { start: 'from', end: 'to' })).toMatch(
      /applied from=2026-11-18 as "2026-11-17"/,
    );
    // The next day as a date is two days applied, both ends inclusive (spec).
    expect(rangeNotApplied({ start_date: '2026-11-18', end_date: '2026-11-19' }, day, wire)).toMatch(
      /applied end_date=2026-11-18 as "2026-11-19"/,
    );
  });

  it('says an echo naming neither range parameter sent, but other dates, applied a range of its own', () => {
    const day = { from: '2026-11-18', to: '2026-11-18' };
    const wire = { start: 'start_date', end: 'end_date' };
    // An API reading `from`/`to` ignored start_date/end_date and applied its default thirty days.
    expect(rangeNotApplied({ from: '2026-10-20', to: '2026-11-18', engines: ['x'] }, day, wire)).toMatch(
      /^the answer's info\.query names from="2026-10-20" but not start_date or end_date, which bvsync sent for 2026-11-18: the API reads its range under other names/,
    );
    // The slice's own day under other names, or no dates at all, says nothing against it.
    for (const query of [
      { from: '2026-11-18', to: '2026-11-18' },
      { since: '2026-11-18T00:00:00Z', until: '2026-11-19T00:00:00Z' },
      { engines: ['x'], page: 1 },
      {},
    ]) {
      expect(rangeNotApplied(query, day, wire), JSON.stringify(query)).toBeUndefined();
    }
  });

  it('carries the days the slice read beside the echo', () => {
    const query = { engines: ['x'], start_date: '2026-11-20' };
    expect(appliedQuery(query, { from: '2026-11-20', to: '2026-11-21' })).toEqual({
      query,
      engines: ['x'],
      rangeStart: '2026-11-20',
      rangeEnd: '2026-11-21',
      sentEngines: null,
    });
    // And the engines filter it sent, which the echo alone cannot tell from the API's default.
    expect(appliedQuery(query, { from: '2026-11-20', to: '2026-11-20' }, 'engines', ['x']).sentEngines).toEqual(['x']);
  });
});
