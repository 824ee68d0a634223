import { describe, expect, it } from 'vitest';
import * as s from '../support/all-schemas.js';
import type { z } from 'zod';
import { validateRecords } from '../../src/api/validate.js';
import { extraOf } from '../../src/streams/extra.js';

const ts = '2026-11-20T10:00:00Z';

/** One minimal valid example per resource (optional fields absent), as the spec describes them. */
const examples: Array<[string, z.ZodType, Record<string, unknown>]> = [];
const add = (name: string, schema: unknown, value: Record<string, unknown>) =>
  examples.push([name, schema as never, value]);
add('tracked url', s.trackedUrlSchema, {
  id: 1,
  url: 'https://a.com/x',
  title: 'X',
  created_at: ts,
  citations: 2,
  conversations: 4,
  citation_rate: 0.5,
});
add('topic', s.topicSchema, {
  id: 1,
  name: 'n',
  language: 'english',
  type: 'prompter',
  status: 'active',
  created_at: ts,
});
add('scenario', s.scenarioSchema, { id: 1, topic_id: 2, text: 't', status: 'active', created_at: ts });
add('tag', s.tagSchema, { id: 1, name: 'n', color: '#aabbcc' });
add('competitor', s.competitorSchema, { id: 1, name: 'n', website: 'w.com', is_actual: false });
add('persona', s.personaSchema, { id: 1, name: 'n', description: 'd' });
add('template', s.templateSchema, { id: 1, title: 't', type: 'brief', created_at: ts, updated_at: ts });
add('article', s.articleSchema, { id: 1, status: 'draft', generation_status: 'done', created_at: ts, updated_at: ts });
add('content analysis', s.contentAnalysisSchema, {
  id: 1,
  kind: 'url',
  status: 'pending',
  step: 's',
  created_at: ts,
  updated_at: ts,
});
add('conversation', s.conversationSchema, {
  id: 1,
  date: ts,
  model: 'm',
  has_shopping: false,
  mentioned: true,
  brands: [{ name: 'b', position: 1, is_own_brand: true }],
});
add('product ranking row', s.productRankingRowSchema, {
  id: 1,
  rank: 1,
  label: 'l',
  title: 't',
  confidence_interval: { lower: 0.1, upper: 0.2 },
});
add('fanout by phrase', s.fanoutByPhraseSchema, { id: 1, query: 'q' });
add('fanout cited', s.fanoutCitedSchema, { id: 1, query: 'q', conversations: 3, relevance: 0.7 });
add('swot answer', s.swotAnswerSchema, { conversation_id: 1, date: ts, text: 't' });
add('visibility row', s.visibilityRowSchema, {
  topic_id: 1,
  name: 't',
  conversations: 10,
  days: 1,
  visibility: 0.4,
  brands: [{ name: 'b', is_own_brand: true, conversations: 10, visibility: 0.4 }],
  scenarios: [{ scenario_id: 3, text: 's', conversations: 5, days: 1, visibility: 0.2, brands: [] }],
});
add('citation series row', s.citationSeriesRowSchema, { date: '2026-11-20', occurrences: 5, change: 0.1 });
add('ownership summary entry', s.ownershipSummaryEntrySchema, {
  label: 'First party',
  ownership: 'first_party',
  occurrences: 3,
  share: 0.3,
});
add('domain detail', s.domainDetailSchema, {
  domain: 'a.com',
  is_first_party: false,
  occurrences: 3,
  by_model: [{ model: 'm', occurrences: 3 }],
  by_scenario: [{ scenario_id: 1, text: 't', occurrences: 3 }],
  by_topic: [{ topic_id: 1, name: 'n', occurrences: 3 }],
  over_time: [{ date: '2026-11-20', occurrences: 3, cited_occurrences: 2 }],
});
add('error envelope', s.errorEnvelopeSchema, {
  error: { code: 'validation_error', message: 'm', details: [{ field: 'page_size', message: 'x' }], request_id: 'r' },
});

describe('resource schemas', () => {
  it('keeps a content analysis step sent as a number as its text: the spec gives step neither a type nor values', () => {
    const example = { id: 1, kind: 'url', status: 'pending', created_at: ts, updated_at: ts };
    expect(s.contentAnalysisSchema.parse({ ...example, step: 2 }).step).toBe('2');
    expect(s.contentAnalysisSchema.parse({ ...example, step: 'fetching' }).step).toBe('fetching');
    expect(s.contentAnalysisSchema.safeParse({ ...example, step: { n: 2 } }).success).toBe(false);
  });

  it.each(examples)('%s: accepts the spec shape with optional fields absent', (_name, schema, value) => {
    expect(schema.safeParse(value).success).toBe(true);
  });

  it.each(examples)('%s: keeps unknown fields', (_name, schema, value) => {
    const parsed = schema.parse({ ...value, brand_new_field: { a: 1 } }) as Record<string, unknown>;
    expect(parsed.brand_new_field).toEqual({ a: 1 });
  });

  it.each(examples)('%s: rejects a record missing a required field', (_name, schema, value) => {
    const [first] = Object.keys(value);
    const { [first!]: _dropped, ...rest } = value;
    expect(schema.safeParse(rest).success).toBe(false);
  });

  it('accepts enum values the spec does not list', () => {
    expect(
      s.ownershipSummaryEntrySchema.safeParse({ label: 'x', ownership: 'podcast_network', occurrences: 1, share: 1 })
        .success,
    ).toBe(true);
    expect(
      s.templateSchema.safeParse({ id: 1, title: 't', type: 'newsletter', created_at: ts, updated_at: ts }).success,
    ).toBe(true);
  });

  it('accepts null for optional fields, and a null change of a first period', () => {
    expect(s.trackedUrlSchema.safeParse({ ...examples[0]![2], first_cited: null, group: null }).success).toBe(true);
    expect(s.citationSeriesRowSchema.safeParse({ date: '2026-11-20', occurrences: 1, change: null }).success).toBe(
      true,
    );
  });

  it('rejects wrong types and out-of-range ratios', () => {
    expect(
      s.conversationSchema.safeParse({ id: '1', date: ts, model: 'm', has_shopping: false, mentioned: true }).success,
    ).toBe(false);
    expect(s.trackedUrlSchema.safeParse({ ...examples[0]![2], citation_rate: 1.5 }).success).toBe(false);
    expect(s.citationSeriesRowSchema.safeParse({ date: '20/11/2026', occurrences: 1, change: 0 }).success).toBe(false);
  });
});

describe('validateRecords and extraOf', () => {
  it('validates one by one and describes each issue with its path', () => {
    const { records, rejects } = validateRecords(
      s.conversationSchema,
      [
        { id: 1, date: ts, model: 'm', has_shopping: false, mentioned: true },
        {
          id: 2,
          date: ts,
          model: 'm',
          has_shopping: false,
          mentioned: true,
          brands: [{ name: 'b', position: 'first', is_own_brand: true }],
        },
      ],
      'GET /x page 1',
    );
    expect(records.map((r) => r.id)).toEqual([1]);
    expect(rejects[0]!.issues).toEqual([expect.stringMatching(/^brands\.0\.position: /)]);
    expect(rejects[0]!.source).toBe('GET /x page 1');
  });

  it('says of an id past 2^53 that it was rounded, not only that it is too big', () => {
    // What JSON.parse makes of the 64-bit id 1795770002077500029: the digits after the 16th are already gone.
    const parsed = JSON.parse('{"id": 1795770002077500029}') as { id: number };
    const { rejects } = validateRecords(
      s.competitorSchema,
      [{ ...parsed, name: 'n', website: 'w', is_actual: true }],
      'GET /x',
    );
    expect(rejects[0]!.issues).toEqual([
      expect.stringMatching(
        /^id: an integer past ±2\^53 \(9007199254740991\).*its copy in _rejected_records is rounded$/,
      ),
    ]);
  });

  it('keeps the fields a schema does not know as extras', () => {
    const record = s.competitorSchema.parse({ id: 1, name: 'n', website: 'w', is_actual: true, tier: 'gold' });
    expect(extraOf(s.competitorSchema, record)).toEqual({ tier: 'gold' });
    expect(extraOf(s.competitorSchema, { id: 1 })).toBeNull();
  });
});

describe('timestamps', () => {
  it('take the forms of ISO 8601 in UTC the spec allows, handed on in one form', async () => {
    const { canonicalTimestamp, timestamp } = await import('../../src/api/schemas.js');
    const cases: Array<[string, string]> = [
      ['2026-11-19T23:54:08.474Z', '2026-11-19T23:54:08.474Z'],
      ['2026-11-19T23:54:08.474', '2026-11-19T23:54:08.474Z'],
      ['2026-11-19T23:54Z', '2026-11-19T23:54:00Z'],
      ['2026-11-19T05:37:50+0530', '2026-11-19T05:37:50+05:30'],
      ['2026-11-19T05:37:50.03+05:30', '2026-11-19T05:37:50.03+05:30'],
      ['2026-11-19T05:37:50-08', '2026-11-19T05:37:50-08:00'],
      ['2026-11-19T05:37:50z', '2026-11-19T05:37:50Z'],
      ['2026-11-19 23:53:25.645+00:00', '2026-11-19T23:53:25.645+00:00'],
      ['2026-11-19 10:00:00Z', '2026-11-19T10:00:00Z'],
      // ISO 8601's comma before the fraction, and its basic form: refused before, every record of such an API was rejected.
      ['2026-11-14T00:00:00,5Z', '2026-11-14T00:00:00.5Z'],
      ['20261114T000000Z', '2026-11-14T00:00:00Z'],
      ['20261114T101530,25+0530', '2026-11-14T10:15:30.25+05:30'],
      ['20261114T1015', '2026-11-14T10:15:00Z'],
    ];
    for (const [text, canonical] of cases) {
      expect(canonicalTimestamp(text), text).toBe(canonical);
      expect(timestamp.parse(text)).toBe(canonical);
      expect(Date.parse(canonical)).not.toBeNaN();
    }
    for (const bad of [
      '2026-02-29T10:00:00Z',
      '2026-11-19T24:00:00Z',
      '2026-11-19  10:00:00Z',
      '2026-11-19_10:00:00Z',
      '2026-11-19',
      'yesterday',
      '2026-11-19T10:00:00+25:00',
      '2026-13-01T00:00:00Z',
      '20260231T000000Z',
      '2026111T000000Z',
      '20261114 000000Z',
    ]) {
      expect(canonicalTimestamp(bad), bad).toBeUndefined();
      expect(timestamp.safeParse(bad).success, bad).toBe(false);
    }
    expect(canonicalTimestamp('2028-02-29T10:00:00Z')).toBe('2028-02-29T10:00:00Z');
  });
});
