import { visibilityMeasures } from './measures.js';
import { perDay } from './slicing.js';
import { defineStream, replacing } from './stream.js';
import { visibilityFacts, visibilityTopicsEndpoint, type VisibilityRow } from './visibility-report.js';
import { sliceRange } from './windows.js';

export * from './visibility-report.js';

// In visibilityFacts' order: a topic's facts, its brands', its scenarios', and theirs.
const FACT_TABLES = [
  'visibility_topic_daily',
  'visibility_topic_brand_daily',
  'visibility_scenario_daily',
  'visibility_scenario_brand_daily',
] as const;

/**
 * Visibility by topic and scenario (spec endpoint 16), a report per brand and day, also kept as the topic and scenario
 * dimensions. Numerators make any window exact; a topic without answers that day has no row (nor in total_rows).
 */
export const visibility = defineStream({
  name: 'visibility',
  endpoint: visibilityTopicsEndpoint,
  provides: {
    topicIds: async (source, brandId) => (await source.brandColumn('topics', 'id', brandId)).map(Number),
    // Asked with no engine list, the report applies "the engines of the brand" and its info.query names them.
    engines: (source, brandId) => source.echoedEngines('visibility', brandId),
  },
  slices: (input) => perDay(input),
  targets: ({ brandId, slice }) => [
    // Merged by key: the visibility report is the only read that names topics and scenarios.
    { table: 'topics', mode: 'merge' },
    { table: 'scenarios', mode: 'merge' },
    ...replacing(FACT_TABLES, { brand_id: brandId, day: slice.day }),
  ],
  read: ({ client, brandId, slice, signal }) =>
    client.read(visibilityTopicsEndpoint, brandId, { ...sliceRange(slice), includeScenarios: true, signal }),
  recordId: (row: VisibilityRow) => row.topic_id,
  rows: (row, { brandId, slice }) => ({
    topics: [{ brand_id: brandId, id: row.topic_id, name: row.name, _extra: null }],
    scenarios: (row.scenarios ?? []).map((scenario) => ({
      brand_id: brandId,
      id: scenario.scenario_id,
      topic_id: row.topic_id,
      text: scenario.text,
      _extra: null,
    })),
    ...visibilityFacts(row, { brand_id: brandId, day: slice.day }, visibilityMeasures, FACT_TABLES),
  }),
});
