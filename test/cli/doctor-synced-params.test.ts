import { describe, expect, it } from 'vitest';
import { syncedParams } from '../../src/cli/doctor/synced-params.js';
import { parseConfig } from '../../src/configuration.js';

/** What a sync sends, found by letting the streams read through a recording client: the settings change it. */
const DAYS = ['2026-11-18', '2026-11-19'];

describe('the parameters a sync sends', () => {
  it('are those the configured streams put in their queries, with paging where an endpoint pages', async () => {
    const sent = await syncedParams(parseConfig({}), DAYS);
    expect([...sent.get('conversations')!].sort()).toEqual(['end_date', 'page', 'page_size', 'start_date']);
    expect(sent.get('tracked-urls')!.has('search')).toBe(false);
    expect(sent.get('reports/citations')!.has('domains')).toBe(true);
    // No SWOT statement is configured: that stream plans nothing, so it sends nothing.
    expect(sent.has('swot/{statement_id}')).toBe(false);
  });

  it('follow the settings: api.engines, a stream left out, conversations by topic', async () => {
    const sent = await syncedParams(
      parseConfig({ api: { engines: ['chatgpt'] }, sync: { streams: ['conversations'], conversationsByTopic: true } }),
      DAYS,
    );
    expect([...sent.keys()]).toEqual(['conversations']);
    expect(sent.get('conversations')!.has('engines')).toBe(true);
    expect(sent.get('conversations')!.has('topic_id')).toBe(true);
  });
});
