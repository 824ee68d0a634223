import { describe, expect, it } from 'vitest';
import { lineDiff, mergedSettings } from '../../src/cli/doctor/config-fix.js';
import { listedNames, nameCandidates, spellings } from '../../src/cli/doctor/name-candidates.js';
import { proposalText } from '../../src/cli/doctor/name-search.js';

describe('the names doctor tries for a wrong parameter', () => {
  it("puts names the API listed first, then the spec's field names, and leaves out the name sent and names taken", () => {
    const candidates = nameCandidates('confirmed', 'confirmed', new Set(['page']), ['only_confirmed', 'page']);
    expect(candidates.slice(0, 2)).toEqual(['only_confirmed', 'is_actual']);
    expect(candidates).not.toContain('confirmed');
    expect(candidates).not.toContain('page');
  });

  it("tries the usual names of a range's ends", () => {
    expect(nameCandidates('start_date', 'start_date', new Set())).toEqual(
      expect.arrayContaining(['from', 'since', 'date_from', 'startDate']),
    );
    expect(nameCandidates('end_date', 'start_date', new Set())).toEqual(
      expect.arrayContaining(['to', 'until', 'date_to', 'endDate']),
    );
  });

  it('spells a name singular and plural, with _id and _ids, in snake_case and camelCase', () => {
    expect(spellings('competitors')).toEqual(
      expect.arrayContaining(['competitor', 'competitor_ids', 'competitor_id', 'competitorIds']),
    );
    expect(spellings('topicId')).toEqual(expect.arrayContaining(['topic_id', 'topic_ids', 'topics']));
  });

  it('reads the names a 400 lists as known', () => {
    expect(
      listedNames('unknown query parameter for this endpoint; known parameters: competitors, end_date, swot_type'),
    ).toEqual(['competitors', 'end_date', 'swot_type']);
    expect(listedNames('Unexpected parameter "kind". Allowed: ["type", "title"]')).toEqual(['type', 'title']);
    expect(listedNames('unknown query parameter for this endpoint')).toEqual([]);
  });
});

describe('doctor --fix', () => {
  it('keeps the names already set and adds those found', () => {
    expect(
      mergedSettings(
        { params: { start_date: 'from' }, endpointParams: { swot: { end_date: 'to' } } },
        { params: { confirmed: 'is_actual' }, endpointParams: { swot: { type: 'kind' } } },
      ),
    ).toEqual({
      params: { start_date: 'from', confirmed: 'is_actual' },
      endpointParams: { swot: { end_date: 'to', type: 'kind' } },
    });
  });

  it('shows the change as the lines removed and added', () => {
    expect(lineDiff('{\n  "a": 1\n}\n', '{\n  "a": 1,\n  "b": 2\n}\n')).toBe('-   "a": 1\n+   "a": 1,\n+   "b": 2');
  });

  it('names the setting to fill by hand where the name goes: every endpoint, or its endpoint alone', () => {
    const unfound = { param: 'confirmed' as const, wire: 'confirmed', tried: ['is_actual'] };
    const text = proposalText(
      [
        { ...unfound, endpoint: 'competitors (7)', scope: 'params' },
        { ...unfound, endpoint: 'tracked-urls (3)', scope: 'endpointParams' },
      ],
      {},
    );
    expect(text).toMatch(/set api\.params\.confirmed$/m);
    expect(text).toMatch(/set api\.endpointParams\.tracked-urls\.confirmed$/m);
  });

  it('offers doctor --fix only when it is not the command that runs', () => {
    const found = { param: 'metric' as const, wire: 'metric', tried: ['rank_by'], endpoint: 'product-ranking (7)' };
    const proposals = [{ ...found, scope: 'params' as const, found: { name: 'rank_by', why: 'it sorts the answer' } }];
    const settings = { params: { metric: 'rank_by' } };
    expect(proposalText(proposals, settings)).toContain('(or run bvsync doctor --fix to write them)');
    const fixing = proposalText(proposals, settings, true);
    expect(fixing).toContain('doctor --fix writes these into "api" of the config file');
    expect(fixing).not.toContain('or run bvsync doctor --fix');
  });
});
