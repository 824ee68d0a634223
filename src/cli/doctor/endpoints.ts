import type { ParamName } from '../../streams/registry.js';

/** The read endpoints bvsync calls, as the table names them (path under the brand, spec number). */
export const ENDPOINTS = {
  trackedUrls: 'tracked-urls (3)',
  competitors: 'competitors (7)',
  templates: 'templates (10)',
  articles: 'articles (11)',
  contentAnalyses: 'content-analyses (12)',
  conversations: 'conversations (13)',
  fanoutsByPhrase: 'fanouts/by-phrase (14)',
  fanoutsCited: 'fanouts/cited (15)',
  visibility: 'reports/visibility/topics (16)',
  citations: 'reports/citations (17)',
  domainDetail: 'citations/domains/{domain} (18)',
  productRanking: 'products/ranking (19)',
  swot: 'swot/{statement_id} (20)',
} as const;

const RANGE = ['start_date', 'end_date', 'engines'] as const;
const PAGING = ['page', 'page_size'] as const;
const CITATION_FILTERS = ['topic_ids', 'ownership', 'content_types', 'sentiment', 'first_party'] as const;

/** Every query parameter the API client (src/api/client.ts) can send, per endpoint: the rows of doctor's table. */
export const SENT_PARAMS: Record<string, readonly ParamName[]> = {
  [ENDPOINTS.visibility]: [...RANGE, 'topic_ids', 'include_scenarios'],
  [ENDPOINTS.citations]: [...RANGE, ...CITATION_FILTERS, 'period', 'domains'],
  [ENDPOINTS.domainDetail]: [...RANGE, ...CITATION_FILTERS],
  [ENDPOINTS.competitors]: ['confirmed'],
  [ENDPOINTS.conversations]: [...RANGE, 'topic_id', 'scenario_id', 'mentioned', 'recommended', 'sort', ...PAGING],
  [ENDPOINTS.trackedUrls]: [...RANGE, 'topic_ids', 'group_id', 'ungrouped', 'search', 'sort', 'order', ...PAGING],
  [ENDPOINTS.templates]: ['type', 'title', ...PAGING],
  [ENDPOINTS.articles]: [...PAGING],
  [ENDPOINTS.contentAnalyses]: [...PAGING],
  [ENDPOINTS.fanoutsByPhrase]: ['phrase', ...PAGING],
  [ENDPOINTS.fanoutsCited]: [...RANGE, 'topic_ids', 'url', 'domain', ...PAGING],
  [ENDPOINTS.productRanking]: [...RANGE, 'topic_ids', 'metric', 'subject', 'order', ...PAGING],
  [ENDPOINTS.swot]: [...RANGE, 'competitors', 'type', ...PAGING],
};
