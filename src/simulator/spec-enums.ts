/** Enumerations and limits the spec states (sections "Enumerations" and "Limits"). */

export const OWNERSHIPS = [
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
export type Ownership = (typeof OWNERSHIPS)[number];

/** Display text of each ownership value, for `info.summary.by_ownership[].label` (endpoint 17). */
export const OWNERSHIP_LABELS: Record<Ownership, string> = {
  first_party: 'First party',
  competitor_owned: 'Competitor owned',
  third_party_editorial: 'Third-party editorial',
  industry_trade_publication: 'Industry / trade publication',
  government_regulatory: 'Government / regulatory',
  academic_research: 'Academic / research',
  aggregator_marketplace: 'Aggregator / marketplace',
  social_ugc_platform: 'Social / UGC platform',
  other: 'Other',
};

export const CONTENT_TYPES = [
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
export type ContentType = (typeof CONTENT_TYPES)[number];

export const SENTIMENTS = ['positive', 'neutral', 'negative'] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

export const PERIODS = ['day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

export const SWOT_TYPES = ['strengths', 'weaknesses', 'opportunities', 'threats'] as const;
export type SwotType = (typeof SWOT_TYPES)[number];

export const TEMPLATE_TYPES = ['brief', 'article'] as const;

/** Spec "Limits". */
export const LIMITS = {
  pageSizeMax: 100,
  productRankingPageSizeMax: 50,
  trackUrlsMax: 200,
  topicsPerRequestMax: 20,
  scenariosPerTopicMax: 100,
  competitorsPerRequestMax: 50,
  domainsFilterMax: 20,
  templateTitleSearchMax: 200,
  phraseMax: 255,
  trackedUrlSearchMax: 255,
  /** Idempotent answers are kept 24 hours. */
  idempotencyTtlMs: 24 * 3_600_000,
} as const;

/** Statuses implied by the article list counters (endpoint 11); `archived` is the simulator's own extra. */
export const ARTICLE_STATUSES = ['draft', 'in_progress', 'published', 'archived'] as const;
