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

/**
 * The read endpoints bvsync calls, each with its number in the spec. Kept by hand; test/api/doctor-verdicts.test.ts
 * fails when a stream reads an endpoint not listed. The cited-by-page stream reads endpoint 15 too.
 */
const NUMBERED = {
  trackedUrls: [trackedUrlsEndpoint, 3],
  competitors: [competitorsEndpoint, 7],
  templates: [templatesEndpoint, 10],
  articles: [articlesEndpoint, 11],
  contentAnalyses: [contentAnalysesEndpoint, 12],
  conversations: [conversationsEndpoint, 13],
  fanoutsByPhrase: [fanoutsByPhraseEndpoint, 14],
  fanoutsCited: [fanoutsCitedEndpoint, 15],
  visibility: [visibilityTopicsEndpoint, 16],
  citations: [citationsEndpoint, 17],
  domainDetail: [domainDetailEndpoint, 18],
  productRanking: [productRankingEndpoint, 19],
  swot: [swotAnswersEndpoint, 20],
} satisfies Record<string, [AnyEndpoint, number]>;

const labelOf = ([endpoint, spec]: [AnyEndpoint, number]) => `${endpoint.name} (${spec})`;

/** The endpoints as the table labels them: path under the brand, spec number (`tracked-urls (3)`). */
export const ENDPOINTS = Object.fromEntries(
  Object.entries(NUMBERED).map(([key, numbered]) => [key, labelOf(numbered)]),
) as Record<keyof typeof NUMBERED, string>;

/** The declaration behind each endpoint of the table (src/streams), by label. */
export const DECLARED: Readonly<Record<string, AnyEndpoint>> = Object.fromEntries(
  Object.values(NUMBERED).map((numbered) => [labelOf(numbered), numbered[0]]),
);

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
