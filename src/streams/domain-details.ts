import { z } from 'zod';
import { defineEndpoint } from '../api/endpoint.js';
import { count, day, id, optional, queryEcho } from '../api/schemas.js';
import { CITATION_FILTER_PARAMS, citationFilterQuery, type CitationFilters } from './citation-filters.js';
import { distinctDomains } from './domains.js';
import { extraOf } from './extra.js';
import { perDay } from './slicing.js';
import { defineStream, replacing, type DaySlice } from './stream.js';
import { sliceRange } from './windows.js';

export const domainDetailSchema = z.looseObject({
  domain: z.string(),
  is_first_party: z.boolean(),
  occurrences: count,
  by_model: z.array(z.looseObject({ model: z.string(), occurrences: count })),
  by_scenario: z.array(z.looseObject({ scenario_id: id, text: z.string(), occurrences: count })),
  by_topic: z.array(z.looseObject({ topic_id: id, name: z.string(), occurrences: count })),
  over_time: z.array(z.looseObject({ date: day, occurrences: count, cited_occurrences: count })),
});

export const domainDetailEnvelopeSchema = z.looseObject({
  data: z.unknown(),
  info: optional(z.looseObject({ query: queryEcho })),
});

export type DomainDetail = z.infer<typeof domainDetailSchema>;

export interface DomainDetailOptions extends CitationFilters {
  domain: string;
}

/** One cited domain (spec endpoint 18): one object; "a domain with no citation in the range gives 404", no data. */
export const domainDetailEndpoint = defineEndpoint({
  name: 'citations/domains/{domain}',
  path: (o: DomainDetailOptions) => ['citations', 'domains', o.domain],
  params: CITATION_FILTER_PARAMS,
  query: (o: DomainDetailOptions) => citationFilterQuery(o),
  envelope: domainDetailEnvelopeSchema,
  record: domainDetailSchema,
  single: true,
  notFoundIsEmpty: true,
});

const TABLES = ['domain_daily', 'domain_model_daily', 'domain_topic_daily', 'domain_scenario_daily'] as const;

const byModelSchema = domainDetailSchema.shape.by_model.element;
const byScenarioSchema = domainDetailSchema.shape.by_scenario.element;
const byTopicSchema = domainDetailSchema.shape.by_topic.element;

/**
 * One cited domain (spec endpoint 18) per brand, domain and day. A 404 is no citation that day: no rows, and the
 * replace clears earlier ones. Rows carry the domain as the slice asked for it, so they fall in the slice's scope.
 */
export const domainDetails = defineStream({
  name: 'domain_details',
  endpoint: domainDetailEndpoint,
  needs: ['domains'],
  slices: (input): Array<DaySlice<{ domain: string }>> =>
    distinctDomains(input.dimensions.domains).flatMap((domain) => perDay(input, { domain }, `${domain}/`)),
  targets: ({ brandId, slice }) =>
    replacing(TABLES, { brand_id: brandId, domain: slice.params.domain, day: slice.day }),
  read: ({ client, brandId, slice, signal }) =>
    client.read(domainDetailEndpoint, brandId, { domain: slice.params.domain, ...sliceRange(slice), signal }),
  rows: (record: DomainDetail, { brandId, slice }) => {
    const key = { brand_id: brandId, domain: slice.params.domain, day: slice.day };
    // over_time has one entry per day with citations; a one-day slice needs the entry of its day.
    const today = record.over_time.find((entry) => entry.date === slice.day);
    return {
      domain_daily: [
        {
          ...key,
          is_first_party: record.is_first_party,
          occurrences: today?.occurrences ?? record.occurrences,
          cited_occurrences: today?.cited_occurrences ?? null,
          _extra: extraOf(domainDetailSchema, record),
        },
      ],
      domain_model_daily: record.by_model.map((entry) => ({
        ...key,
        model: entry.model,
        occurrences: entry.occurrences,
        _extra: extraOf(byModelSchema, entry),
      })),
      domain_topic_daily: record.by_topic.map((entry) => ({
        ...key,
        topic_id: entry.topic_id,
        name: entry.name,
        occurrences: entry.occurrences,
        _extra: extraOf(byTopicSchema, entry),
      })),
      domain_scenario_daily: record.by_scenario.map((entry) => ({
        ...key,
        scenario_id: entry.scenario_id,
        text: entry.text,
        occurrences: entry.occurrences,
        _extra: extraOf(byScenarioSchema, entry),
      })),
    };
  },
});
