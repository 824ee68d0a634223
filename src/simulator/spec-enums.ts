/**
 * Enumerations and limits the spec states (sections "Enumerations" and "Limits"). The value lists are the ones the
 * client validates against: one copy of the spec's lists, so the twin and the client cannot drift apart.
 */
import type { CONTENT_TYPE_VALUES, OWNERSHIP_VALUES, SENTIMENT_VALUES } from '../api/schemas.js';

export {
  CONTENT_TYPE_VALUES,
  OWNERSHIP_VALUES,
  PERIOD_VALUES,
  SENTIMENT_VALUES,
  SWOT_TYPE_VALUES,
  TEMPLATE_TYPE_VALUES,
} from '../api/schemas.js';

export type Ownership = (typeof OWNERSHIP_VALUES)[number];

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

export type ContentType = (typeof CONTENT_TYPE_VALUES)[number];
export type Sentiment = (typeof SENTIMENT_VALUES)[number];
export type { Period, SwotType } from '../api/schemas.js';

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
