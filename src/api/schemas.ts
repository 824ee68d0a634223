import { z } from 'zod';

/*
 * The resources and envelopes of the spec ("Resources and their fields", "Errors"). Three rules hold for all:
 * - objects are loose: fields the spec does not name pass through (the streams keep them in `_extra`);
 * - enums the spec lists are typed as strings, since values it does not list must be kept as they come;
 *   the listed values are exported for documentation and tests;
 * - optional fields may be absent or null.
 */

const id = z.int();
const count = z.int().nonnegative();
const timestamp = z.iso.datetime({ offset: true });
const day = z.iso.date();
const ratio = z.number().min(0).max(1);
const optional = <T extends z.ZodType>(schema: T) => schema.nullish();

/** Enumerations of the spec ("Enumerations"); received values outside these lists are kept. */
export const OWNERSHIP_VALUES = [
  'first_party',
  'competitor_owned',
  'third_party_editorial',
  'industry_trade_publication',
  'government_regulatory',
  'academic_research',
  'aggregator_marketplace',
  'social_ugc_platform',
  'other',
] as const;
export const CONTENT_TYPE_VALUES = [
  'blog_article',
  'product_service_page',
  'review_editorial',
  'review_user_generated',
  'comparison_vs_page',
  'listicle_best_of',
  'news_article',
  'press_release',
  'advertorial',
  'documentation_knowledge_base',
  'case_study',
  'research_paper_report',
  'forum_thread_qa',
  'social_media_post',
  'video',
  'podcast_transcript',
  'wikipedia_encyclopedia',
  'other',
] as const;
export const SENTIMENT_VALUES = ['positive', 'neutral', 'negative'] as const;
export const PERIOD_VALUES = ['day', 'week', 'month'] as const;
export const SWOT_TYPE_VALUES = ['strengths', 'weaknesses', 'opportunities', 'threats'] as const;
export const TEMPLATE_TYPE_VALUES = ['brief', 'article'] as const;
export const BULK_REJECTION_CODES = ['not_found', 'conflict', 'plan_limit_reached'] as const;

/** A string enum that also takes values the spec does not list (typed for editors, open at run time). */
function openEnum<const T extends readonly string[]>(_known: T) {
  return z.string() as unknown as z.ZodType<T[number] | (string & {})>;
}

export type Ownership = (typeof OWNERSHIP_VALUES)[number] | (string & {});
export type ContentType = (typeof CONTENT_TYPE_VALUES)[number] | (string & {});
export type Sentiment = (typeof SENTIMENT_VALUES)[number] | (string & {});
export type Period = (typeof PERIOD_VALUES)[number];
export type SwotType = (typeof SWOT_TYPE_VALUES)[number];
export type TemplateType = (typeof TEMPLATE_TYPE_VALUES)[number];

const confidenceInterval = z.looseObject({ lower: z.number(), upper: z.number() });

export const trackedUrlSchema = z.looseObject({
  id,
  url: z.string(),
  title: z.string(),
  created_at: timestamp,
  citations: count,
  conversations: count,
  citation_rate: ratio,
  first_cited: optional(timestamp),
  group: optional(z.looseObject({ id, name: z.string() })),
});

export const scenarioSchema = z.looseObject({
  id,
  topic_id: id,
  text: z.string(),
  status: z.string(),
  created_at: timestamp,
});

export const tagSchema = z.looseObject({ id, name: z.string(), color: z.string() });

export const topicSchema = z.looseObject({
  id,
  name: z.string(),
  language: z.string(),
  type: z.string(),
  status: z.string(),
  created_at: timestamp,
  answer_engines: optional(z.array(z.string())),
  persona_id: optional(id),
  scenarios: optional(z.array(scenarioSchema)),
  tags: optional(z.array(tagSchema)),
});

export const competitorSchema = z.looseObject({
  id,
  name: z.string(),
  website: z.string(),
  is_actual: z.boolean(),
});

export const personaSchema = z.looseObject({
  id,
  name: z.string(),
  description: z.string(),
  city: optional(z.string()),
  country: optional(z.string()),
  properties: optional(z.record(z.string(), z.unknown())),
});

export const templateSchema = z.looseObject({
  id,
  title: z.string(),
  type: openEnum(TEMPLATE_TYPE_VALUES),
  article_type: optional(z.string()),
  content: optional(z.string()),
  created_at: timestamp,
  updated_at: timestamp,
});

export const articleSchema = z.looseObject({
  id,
  title: optional(z.string()),
  slug: optional(z.string()),
  language: optional(z.string()),
  type: optional(z.string()),
  version: optional(z.int()),
  status: z.string(),
  generation_status: z.string(),
  topic_ids: optional(z.array(id)),
  scenario_ids: optional(z.array(id)),
  created_at: timestamp,
  updated_at: timestamp,
});

export const contentAnalysisSchema = z.looseObject({
  id,
  kind: z.string(),
  status: z.string(),
  step: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  article_id: optional(id),
  title: optional(z.string()),
  topic_id: optional(id),
  topic_name: optional(z.string()),
  url: optional(z.string()),
});

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

export const productRankingRowSchema = z.looseObject({
  id,
  rank: z.int(),
  label: z.string(),
  title: z.string(),
  category: optional(z.string()),
  price: optional(z.string()),
  rating: optional(z.number()),
  reviews: optional(count),
  visibility: optional(z.number()),
  recommendation: optional(z.number()),
  image_url: optional(z.string()),
  confidence_interval: optional(confidenceInterval),
});

export const fanoutByPhraseSchema = z.looseObject({ id, query: z.string() });

export const fanoutCitedSchema = z.looseObject({
  id,
  query: z.string(),
  conversations: count,
  relevance: z.number(),
});

export const swotAnswerSchema = z.looseObject({
  conversation_id: id,
  date: timestamp,
  text: z.string(),
  model: optional(z.string()),
});

const bulkRejectionSchema = z.looseObject({ index: z.int().nonnegative(), code: openEnum(BULK_REJECTION_CODES), message: z.string() });

/** The bulk write envelope shared by the three create operations (spec, "Bulk write envelope"). */
export function bulkEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    info: z.looseObject({ dry_run: z.boolean(), written: count, rejected: count }),
    rejected: z.array(bulkRejectionSchema),
  });
}

const visibilityMeasures = {
  conversations: count,
  visibility: ratio,
  change: optional(z.number()),
  confidence_interval: optional(confidenceInterval),
  share_of_voice: optional(z.number()),
};

export const visibilityBrandSchema = z.looseObject({
  name: z.string(),
  website: optional(z.string()),
  is_own_brand: z.boolean(),
  ...visibilityMeasures,
});

export const visibilityScenarioSchema = z.looseObject({
  scenario_id: id,
  text: z.string(),
  days: count,
  ...visibilityMeasures,
  brands: z.array(visibilityBrandSchema),
});

export const visibilityRowSchema = z.looseObject({
  topic_id: id,
  name: z.string(),
  days: count,
  ...visibilityMeasures,
  brands: z.array(visibilityBrandSchema),
  scenarios: optional(z.array(visibilityScenarioSchema)),
});

export const citationSeriesRowSchema = z.looseObject({
  date: day,
  occurrences: count,
  // The first period has no previous one to compare with; null there is not a broken record.
  change: z.number().nullable(),
  domain: optional(z.string()),
});

export const ownershipSummaryEntrySchema = z.looseObject({
  label: z.string(),
  ownership: openEnum(OWNERSHIP_VALUES),
  occurrences: count,
  share: z.number(),
});

export const domainDetailSchema = z.looseObject({
  domain: z.string(),
  is_first_party: z.boolean(),
  occurrences: count,
  by_model: z.array(z.looseObject({ model: z.string(), occurrences: count })),
  by_scenario: z.array(z.looseObject({ scenario_id: id, text: z.string(), occurrences: count })),
  by_topic: z.array(z.looseObject({ topic_id: id, name: z.string(), occurrences: count })),
  over_time: z.array(z.looseObject({ date: day, occurrences: count, cited_occurrences: count })),
});

export const errorEnvelopeSchema = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    details: optional(z.array(z.looseObject({ field: z.string(), message: z.string() }))),
    request_id: optional(z.string()),
  }),
});

// Envelopes of the read endpoints. Records are validated one by one afterwards, so `data` is unknown[] here.
const records = z.array(z.unknown());
const pagingInfo = { page: optional(z.int().positive()), page_size: optional(z.int().positive()), total_rows: optional(count) };
const queryEcho = optional(z.record(z.string(), z.unknown()));

export const pagedEnvelopeSchema = z.looseObject({ data: records, info: z.looseObject(pagingInfo) });

export const trackedUrlsEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({ ...pagingInfo, citations: optional(count), cited_urls: optional(count) }),
});

export const articlesEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({ ...pagingInfo, draft: optional(count), in_progress: optional(count), published: optional(count) }),
});

export const productRankingEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({ ...pagingInfo, shopping_conversations: optional(count) }),
});

export const swotEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({
    ...pagingInfo,
    type: optional(z.string()),
    statement: optional(z.looseObject({ id: optional(id), text: optional(z.string()), mentions: optional(z.unknown()) })),
  }),
});

export const visibilityEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({ query: queryEcho, total_rows: optional(count) }),
});

export const citationsEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({
    query: queryEcho,
    total_rows: optional(count),
    summary: optional(z.looseObject({ occurrences: optional(count), by_ownership: optional(records) })),
  }),
});

export const domainDetailEnvelopeSchema = z.looseObject({
  data: z.unknown(),
  info: optional(z.looseObject({ query: queryEcho })),
});

export type TrackedUrl = z.infer<typeof trackedUrlSchema>;
export type Topic = z.infer<typeof topicSchema>;
export type Scenario = z.infer<typeof scenarioSchema>;
export type Tag = z.infer<typeof tagSchema>;
export type Competitor = z.infer<typeof competitorSchema>;
export type Persona = z.infer<typeof personaSchema>;
export type Template = z.infer<typeof templateSchema>;
export type Article = z.infer<typeof articleSchema>;
export type ContentAnalysis = z.infer<typeof contentAnalysisSchema>;
export type Conversation = z.infer<typeof conversationSchema>;
export type ConversationBrand = z.infer<typeof conversationBrandSchema>;
export type ProductRankingRow = z.infer<typeof productRankingRowSchema>;
export type FanoutByPhrase = z.infer<typeof fanoutByPhraseSchema>;
export type FanoutCited = z.infer<typeof fanoutCitedSchema>;
export type SwotAnswer = z.infer<typeof swotAnswerSchema>;
export type VisibilityRow = z.infer<typeof visibilityRowSchema>;
export type VisibilityBrand = z.infer<typeof visibilityBrandSchema>;
export type VisibilityScenario = z.infer<typeof visibilityScenarioSchema>;
export type CitationSeriesRow = z.infer<typeof citationSeriesRowSchema>;
export type OwnershipSummaryEntry = z.infer<typeof ownershipSummaryEntrySchema>;
export type DomainDetail = z.infer<typeof domainDetailSchema>;
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
