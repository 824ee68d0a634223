import { z } from 'zod';
import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import { id, optional, pagedEnvelopeSchema, timestamp } from '../api/schemas.js';
import { timestampDay } from '../days.js';
import { extraOf } from './extra.js';
import { perDay } from './slicing.js';
import { defineStream, replacing, type DaySlice } from './stream.js';
import { sliceRange } from './windows.js';

export const conversationBrandSchema = z.looseObject({
  name: z.string(),
  website: optional(z.string()),
  position: z.int(),
  is_own_brand: z.boolean(),
});

export const conversationSchema = z.looseObject({
  id,
  date: timestamp,
  model: z.string(),
  has_shopping: z.boolean(),
  mentioned: z.boolean(),
  recommended: optional(z.boolean()),
  position: optional(z.int()),
  recommendation_position: optional(z.int()),
  fact_check_passed: optional(z.boolean()),
  brands: optional(z.array(conversationBrandSchema)),
});

export type Conversation = z.infer<typeof conversationSchema>;

export interface ConversationsOptions extends RangeFilter, EngineFilter {
  topicId?: number;
  scenarioId?: number;
  mentioned?: boolean;
  recommended?: boolean;
  sort?: 'newest' | 'oldest';
}

export const conversationsEndpoint = defineEndpoint({
  name: 'conversations',
  path: () => ['conversations'],
  params: [...RANGE_PARAMS, 'topic_id', 'scenario_id', 'mentioned', 'recommended', 'sort'],
  query: (o: ConversationsOptions) => ({
    ...rangeQuery(o),
    topic_id: o.topicId,
    scenario_id: o.scenarioId,
    mentioned: o.mentioned,
    recommended: o.recommended,
    sort: o.sort,
  }),
  envelope: pagedEnvelopeSchema,
  record: conversationSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

/** A day, or a day and topic when sliced by topic. */
type ConversationSlice = DaySlice<{ topicId?: number }>;

/**
 * Answers of the engines (spec endpoint 13), one slice per brand and day, or per brand, day and topic with
 * `sync.conversationsByTopic`: a record does not name its topic, so the filter is the only way to attribute it.
 */
export const conversations = defineStream({
  name: 'conversations',
  endpoint: conversationsEndpoint,
  settings: {
    /** Slice conversations by topic so each answer is attributed to its topic; default false (see docs/syncing.md, "What each stream costs"). */
    conversationsByTopic: z.boolean().default(false),
  },
  needs: (sync) => (sync.conversationsByTopic ? ['topicIds'] : []),
  slices: (input): ConversationSlice[] =>
    input.sync.conversationsByTopic
      ? input.dimensions.topicIds.flatMap((topicId) => perDay(input, { topicId }, `topic-${topicId}/`))
      : perDay(input),
  targets: ({ brandId, slice }) => {
    if (slice.params.topicId !== undefined) {
      // Merged, not replaced, under a topic slice: rows loaded without a topic would escape a topic scope and collide on
      // the key. An answer the API withdrew stays until a by-day load replaces the day.
      return [
        { table: 'conversations', mode: 'merge' },
        { table: 'conversation_brands', mode: 'merge' },
      ];
    }
    return replacing(['conversations', 'conversation_brands'], { brand_id: brandId, day: slice.day });
  },
  read: ({ client, brandId, slice, signal }) =>
    client.read(conversationsEndpoint, brandId, { ...sliceRange(slice), topicId: slice.params.topicId, signal }),
  recordId: (record: Conversation) => record.id,
  rows: (record, { brandId, slice }) => {
    const day = timestampDay(record.date);
    return {
      conversations: [
        {
          brand_id: brandId,
          id: record.id,
          day,
          date: record.date,
          model: record.model,
          has_shopping: record.has_shopping,
          mentioned: record.mentioned,
          recommended: record.recommended ?? null,
          position: record.position ?? null,
          recommendation_position: record.recommendation_position ?? null,
          fact_check_passed: record.fact_check_passed ?? null,
          topic_id: slice.params.topicId ?? null,
          _extra: extraOf(conversationSchema, record),
        },
      ],
      conversation_brands: (record.brands ?? []).map((brand, ordinal) => ({
        brand_id: brandId,
        conversation_id: record.id,
        ordinal,
        day,
        name: brand.name,
        website: brand.website ?? null,
        position: brand.position,
        is_own_brand: brand.is_own_brand,
        _extra: extraOf(conversationBrandSchema, brand),
      })),
    };
  },
});
