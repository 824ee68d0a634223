import { describe, expect, it } from 'vitest';
import { appliedQuery, echoedEngines, engineNotApplied, queryEchoOf } from '../../src/warehouse/provenance.js';

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
    expect(echoedEngines({ engines: 'chatgpt' }, 'engines')).toBeNull();
  });

  it('says a per-engine answer is not its engine\'s only when the echo names another engine', () => {
    for (const engines of [['chatgpt'], ['ChatGPT'], ['chatgpt', 'chatgpt'], [], undefined, [1]]) {
      expect(engineNotApplied({ engines }, 'engines', 'chatgpt'), JSON.stringify(engines)).toBeUndefined();
    }
    expect(engineNotApplied({ models: ['gemini', 'chatgpt'] }, 'models', 'chatgpt')).toMatch(/^asked for engine "chatgpt" alone, the answer's info\.query says it applied \["gemini","chatgpt"\]/);
    expect(engineNotApplied({ engines: ['gemini'] }, 'engines', 'chatgpt')).toBeDefined();
  });

  it('carries the days the slice read beside the echo', () => {
    const query = { engines: ['x'], start_date: '2026-11-20' };
    expect(appliedQuery(query, { from: '2026-11-20', to: '2026-11-21' })).toEqual({ query, engines: ['x'], rangeStart: '2026-11-20', rangeEnd: '2026-11-21' });
  });
});
