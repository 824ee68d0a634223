import type { AnyEndpoint } from '../../api/endpoint.js';
import { PAGING_PARAM_NAMES } from '../../api/param-names.js';
import { articlesEndpoint } from '../../streams/articles.js';
import { citationsEndpoint } from '../../streams/citations.js';
import { competitorsEndpoint } from '../../streams/competitors.js';
import { contentAnalysesEndpoint } from '../../streams/content-analyses.js';
import { conversationsEndpoint } from '../../streams/conversations.js';
import { domainDetailEndpoint } from '../../streams/domain-details.js';
import { fanoutsByPhraseEndpoint } from '../../streams/fanouts-by-phrase.js';
import { fanoutsCitedEndpoint } from '../../streams/fanouts-cited.js';
import { productRankingEndpoint } from '../../streams/product-ranking.js';
import type { ParamName } from '../../streams/registry.js';
import { swotAnswersEndpoint } from '../../streams/swot.js';
import { templatesEndpoint } from '../../streams/templates.js';
import { trackedUrlsEndpoint } from '../../streams/tracked-urls.js';
import { visibilityTopicsEndpoint } from '../../streams/visibility.js';

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

/**
 * The declaration behind each endpoint of the table (src/streams); the cited-by-page stream reads endpoint 15 too.
 * Kept by hand for the labels; test/api/doctor-verdicts.test.ts fails when a stream reads an endpoint not listed.
 */
export const DECLARED: Readonly<Record<string, AnyEndpoint>> = {
  [ENDPOINTS.visibility]: visibilityTopicsEndpoint,
  [ENDPOINTS.citations]: citationsEndpoint,
  [ENDPOINTS.domainDetail]: domainDetailEndpoint,
  [ENDPOINTS.competitors]: competitorsEndpoint,
  [ENDPOINTS.conversations]: conversationsEndpoint,
  [ENDPOINTS.trackedUrls]: trackedUrlsEndpoint,
  [ENDPOINTS.templates]: templatesEndpoint,
  [ENDPOINTS.articles]: articlesEndpoint,
  [ENDPOINTS.contentAnalyses]: contentAnalysesEndpoint,
  [ENDPOINTS.fanoutsByPhrase]: fanoutsByPhraseEndpoint,
  [ENDPOINTS.fanoutsCited]: fanoutsCitedEndpoint,
  [ENDPOINTS.productRanking]: productRankingEndpoint,
  [ENDPOINTS.swot]: swotAnswersEndpoint,
};

/** The name `api.endpointParams` knows a label of the table's endpoint by (`tracked-urls (3)` -> `tracked-urls`). */
export function endpointNameOf(label: string): string {
  return DECLARED[label]?.name ?? label;
}

/**
 * Every query parameter the API client can send, per endpoint: the rows of doctor's table, taken from the endpoint
 * declarations the client reads, so the table cannot miss a parameter the client sends.
 */
export const SENT_PARAMS: Record<string, readonly ParamName[]> = Object.fromEntries(
  Object.entries(DECLARED).map(([label, endpoint]) => [
    label,
    [...(endpoint.params as readonly ParamName[]), ...(endpoint.maxPageSize === undefined ? [] : PAGING_PARAM_NAMES)],
  ]),
);
