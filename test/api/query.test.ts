import { describe, expect, it } from 'vitest';
import { brandPath, buildQuery, formatDay, withQuery } from '../../src/api/query.js';

const defaults = { params: {}, arrayFormat: 'repeat' as const };

describe('buildQuery', () => {
  it('sends default names, repeats arrays, and writes booleans and dates as the spec reads them', () => {
    const query = buildQuery(
      {
        start_date: new Date('2026-11-20T23:59:59Z'),
        end_date: '2026-11-21',
        engines: ['a', 'b'],
        mentioned: false,
        include_scenarios: true,
        page: 2,
      },
      defaults,
    );
    expect(query).toBe(
      'start_date=2026-11-20&end_date=2026-11-21&engines=a&engines=b&mentioned=false&include_scenarios=true&page=2',
    );
  });

  it('joins arrays with commas in comma format', () => {
    const query = buildQuery({ topic_ids: [1, 2, 3] }, { params: {}, arrayFormat: 'comma' });
    expect(new URLSearchParams(query).getAll('topic_ids')).toEqual(['1,2,3']);
  });

  it('uses the configured wire names and leaves unmapped names as they are', () => {
    const query = buildQuery(
      { start_date: '2026-11-01', page_size: 50, engines: ['x'] },
      { params: { start_date: 'from', page_size: 'limit' }, arrayFormat: 'repeat' },
    );
    expect(query).toBe('from=2026-11-01&limit=50&engines=x');
  });

  it('leaves out undefined, null and empty arrays (the spec wants at least one element)', () => {
    expect(buildQuery({ engines: [], topic_ids: undefined, search: null, sort: 'newest' }, defaults)).toBe(
      'sort=newest',
    );
  });

  it('percent-encodes values', () => {
    const query = buildQuery({ search: 'a&b c/ü', url: 'https://x.com/?q=1' }, defaults);
    const parsed = new URLSearchParams(query);
    expect(parsed.get('search')).toBe('a&b c/ü');
    expect(parsed.get('url')).toBe('https://x.com/?q=1');
    expect(query).not.toContain('&b');
  });

  it('passes an ISO datetime string unchanged', () => {
    expect(new URLSearchParams(buildQuery({ start_date: '2026-11-20T10:00:00Z' }, defaults)).get('start_date')).toBe(
      '2026-11-20T10:00:00Z',
    );
  });

  it('rejects an invalid Date instead of sending NaN', () => {
    expect(() => formatDay(new Date('nope'))).toThrow(RangeError);
  });
});

describe('brandPath', () => {
  it('encodes every segment so a domain or id cannot change the path', () => {
    expect(brandPath(7, 'citations', 'domains', 'ex ample.com/../x')).toBe(
      '/customer/v1/brands/7/citations/domains/ex%20ample.com%2F..%2Fx',
    );
    expect(brandPath(7, 'swot', 12)).toBe('/customer/v1/brands/7/swot/12');
  });

  it('adds the query only when there is one', () => {
    expect(withQuery('/p', '')).toBe('/p');
    expect(withQuery('/p', 'a=1')).toBe('/p?a=1');
  });
});
