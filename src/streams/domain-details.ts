import { domainDetailSchema, type DomainDetail } from '../api/index.js';
import { distinctDomains } from './domains.js';
import { extraOf } from './extra.js';
import { perDay } from './slicing.js';
import { defineStream } from './stream.js';
import { stringParam } from './slice-params.js';
import { sliceRange } from './windows.js';

const TABLES = ['domain_daily', 'domain_model_daily', 'domain_topic_daily', 'domain_scenario_daily'] as const;

const byModelSchema = domainDetailSchema.shape.by_model.element;
const byScenarioSchema = domainDetailSchema.shape.by_scenario.element;
const byTopicSchema = domainDetailSchema.shape.by_topic.element;

/**
 * One cited domain (spec endpoint 18) per brand, domain and day, for the domains phase 1 found. A 404 means the
 * domain had no citation that day: the slice loads no rows, and its replace clears rows an earlier fetch left.
 * Rows carry the domain as the slice asked for it, so they always fall in the slice's scope.
 */
export const domainDetails = defineStream<DomainDetail>({
  name: 'domain_details',
  phase: 2,
  slices: (input) => distinctDomains(input.dimensions.domains).flatMap((domain) => perDay(input, { domain }, `${domain}/`)),
  targets: ({ brandId, slice }) =>
    TABLES.map((table) => ({
      table,
      mode: 'replace' as const,
      scope: { brand_id: brandId, domain: stringParam(slice, 'domain'), day: slice.day! },
    })),
  read: async function* ({ client, brandId, slice, signal }) {
    const detail = await client.domainDetail(brandId, stringParam(slice, 'domain'), { ...sliceRange(slice), signal });
    yield { records: detail.records, rejects: detail.rejects, totalRows: undefined, info: detail.info };
  },
  rows: (record, { brandId, slice }) => {
    const key = { brand_id: brandId, domain: stringParam(slice, 'domain'), day: slice.day! };
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
