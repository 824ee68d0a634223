import { conversationBrandSchema, conversationSchema, type Conversation } from '../api/index.js';
import { dayOf, extraOf } from './extra.js';
import { perDay } from './slicing.js';
import { defineStream } from './stream.js';

/**
 * Answers of the engines (spec endpoint 13), one slice per brand and day — or per brand, day and topic when
 * `sync.conversationsByTopic` is on, because a conversation record does not say which topic it answers and the
 * topic filter is the only way to attribute it (that costs one more slice per topic; see docs/syncing.md, "What each stream costs").
 */
export const conversations = defineStream<Conversation>({
  name: 'conversations',
  phase: (sync) => (sync.conversationsByTopic ? 2 : 1),
  slices: (input) =>
    input.sync.conversationsByTopic
      ? input.dimensions.topicIds.flatMap((topicId) => perDay(input, { topicId }, `topic-${topicId}/`))
      : perDay(input),
  targets: ({ brandId, slice }) => {
    const topicId = slice.params.topicId;
    if (typeof topicId === 'number') {
      // Merged, not replaced, under a topic slice: rows loaded before slicing by topic was turned on carry no topic
      // and would escape a topic scope, then collide on the key. An answer the API withdrew stays until a by-day
      // re-load replaces the day.
      return [
        { table: 'conversations', mode: 'merge' },
        { table: 'conversation_brands', mode: 'merge' },
      ];
    }
    return [
      { table: 'conversations', mode: 'replace', scope: { brand_id: brandId, day: slice.day! } },
      { table: 'conversation_brands', mode: 'replace', scope: { brand_id: brandId, day: slice.day! } },
    ];
  },
  read: ({ client, brandId, slice, signal }) =>
    client.conversations(brandId, {
      startDate: slice.from!,
      endDate: slice.to!,
      topicId: typeof slice.params.topicId === 'number' ? slice.params.topicId : undefined,
      signal,
    }),
  recordId: (record) => record.id,
  rows: (record, { brandId, slice }) => {
    const day = dayOf(record.date);
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
          topic_id: typeof slice.params.topicId === 'number' ? slice.params.topicId : null,
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
