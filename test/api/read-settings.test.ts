import { describe, expect, it } from 'vitest';
import { describeSettingsChange, readSettingsNow, readSettingsOf } from '../../src/api/read-settings.js';

const api = { params: {}, endpointParams: {}, arrayFormat: 'repeat' as const, firstPage: 1 as const };

describe('read settings', () => {
  it('record the wire name of each parameter sent, arrays only when one was sent, the first page only when paged', () => {
    const range = { start_date: '2026-11-13', end_date: '2026-11-13', engines: undefined, topic_id: null };
    expect(JSON.parse(readSettingsOf(range, { params: { start_date: 'since' }, arrayFormat: 'comma' }))).toEqual({
      names: { end_date: 'end_date', start_date: 'since' },
    });
    const paged = readSettingsOf({ ...range, engines: ['chatgpt'] }, { params: {}, arrayFormat: 'comma' }, 0);
    expect(JSON.parse(paged)).toEqual({
      names: {
        end_date: 'end_date',
        engines: 'engines',
        page: 'page',
        page_size: 'page_size',
        start_date: 'start_date',
      },
      arrayFormat: 'comma',
      firstPage: 0,
    });
    // An empty list is not sent (query.ts), so no array encoding was used.
    expect(JSON.parse(readSettingsOf({ engines: [] }, { params: {}, arrayFormat: 'comma' }))).toEqual({ names: {} });
  });

  it('are text that compares equal for the same settings whatever the order of the query', () => {
    const encoding = { params: {}, arrayFormat: 'repeat' as const };
    expect(readSettingsOf({ start_date: 'a', end_date: 'b' }, encoding)).toBe(
      readSettingsOf({ end_date: 'x', start_date: 'y' }, encoding),
    );
  });

  it('say what the same parameters would be sent as today, endpoint names over api.params', () => {
    const recorded = readSettingsOf({ start_date: 'a', engines: ['x'] }, { params: {}, arrayFormat: 'repeat' }, 1);
    expect(readSettingsNow(recorded, api, 'tracked-urls')).toBe(recorded);
    // Which parameters a read sends is the read's: engines sent then are compared, not what api.engines sends now.
    const now = readSettingsNow(
      recorded,
      {
        ...api,
        params: { start_date: 'since' },
        endpointParams: { 'tracked-urls': { start_date: 'from' } },
        arrayFormat: 'comma',
        firstPage: 0,
      },
      'tracked-urls',
    )!;
    expect(JSON.parse(now)).toEqual({
      names: { engines: 'engines', page: 'page', page_size: 'page_size', start_date: 'from' },
      arrayFormat: 'comma',
      firstPage: 0,
    });
    expect(describeSettingsChange(recorded, now)).toBe(
      'start_date sent as start_date, now from; arrays sent as repeat, now comma (api.arrayFormat); first page numbered 1, now 0 (api.firstPage)',
    );
    expect(readSettingsNow('not json', api, 'tracked-urls')).toBeUndefined();
  });
});
