import type { ApiClient, PageStream, ReadOptions, ReadPage } from '../api/client.js';
import type { Page, PagingInfo, PagingSummary } from '../api/paginate.js';
import type { Rejection } from '../api/validate.js';
import { articlesEndpoint } from '../streams/articles.js';
import { citationsEndpoint, ownershipSummary, type CitationsOptions } from '../streams/citations.js';
import type { CitationFilters } from '../streams/citation-filters.js';
import { competitorsEndpoint, type CompetitorsOptions } from '../streams/competitors.js';
import { contentAnalysesEndpoint } from '../streams/content-analyses.js';
import { conversationsEndpoint, type ConversationsOptions } from '../streams/conversations.js';
import { domainDetailEndpoint } from '../streams/domain-details.js';
import { fanoutsByPhraseEndpoint, type FanoutsByPhraseOptions } from '../streams/fanouts-by-phrase.js';
import { fanoutsCitedEndpoint, type FanoutsCitedOptions } from '../streams/fanouts-cited.js';
import { productRankingEndpoint, type ProductRankingOptions } from '../streams/product-ranking.js';
import { swotAnswersEndpoint, type SwotAnswersOptions } from '../streams/swot.js';
import { templatesEndpoint, type TemplatesOptions } from '../streams/templates.js';
import { trackedUrlsEndpoint, type TrackedUrlsOptions } from '../streams/tracked-urls.js';
import { visibilityTopicsEndpoint, type VisibilityTopicsOptions } from '../streams/visibility.js';

/** The answer of a single-shot (unpaged) endpoint. */
export interface Report<T, I> {
  records: T[];
  rejects: Rejection[];
  info: I;
  totalRows: number | undefined;
}

type Options<O> = O & ReadOptions;

/** The pages of a paged endpoint: paginate's, numbered, with the summary doctor's paging probe reads. */
export type PagedStream<R, I> = AsyncGenerator<Page<R, I & PagingInfo>, PagingSummary>;

function paged<R, I>(pages: PageStream<R, I>): PagedStream<R, I> {
  // The client reads an endpoint with a page size limit through paginate, whose pages carry all of Page.
  return pages as PagedStream<R, I>;
}

/** The one page of a single-shot read. */
async function whole<R, I>(pages: PageStream<R, I>): Promise<Report<R, I>> {
  let answer: ReadPage<R, I> | undefined;
  for await (const page of pages) answer ??= page;
  if (!answer) throw new Error('a single-shot read gave no answer');
  return { records: answer.records, rejects: answer.rejects, info: answer.info, totalRows: answer.totalRows };
}

/**
 * The endpoints by name, for the commands that probe them one by one (doctor, the brand check before a run): each
 * is the client's one `read` of a stream's endpoint declaration, a report gathered into its one answer.
 */
export type EndpointReads = ReturnType<typeof endpointReads>;

export function endpointReads(client: ApiClient) {
  return {
    trackedUrls: (brandId: number, o: Options<TrackedUrlsOptions> = {}) =>
      paged(client.read(trackedUrlsEndpoint, brandId, o)),
    competitors: (brandId: number, o: Options<CompetitorsOptions> = {}) =>
      whole(client.read(competitorsEndpoint, brandId, o)),
    templates: (brandId: number, o: Options<TemplatesOptions> = {}) =>
      paged(client.read(templatesEndpoint, brandId, o)),
    articles: (brandId: number, o: ReadOptions = {}) => paged(client.read(articlesEndpoint, brandId, o)),
    contentAnalyses: (brandId: number, o: ReadOptions = {}) => paged(client.read(contentAnalysesEndpoint, brandId, o)),
    conversations: (brandId: number, o: Options<ConversationsOptions> = {}) =>
      paged(client.read(conversationsEndpoint, brandId, o)),
    fanoutsByPhrase: (brandId: number, o: Options<FanoutsByPhraseOptions>) =>
      paged(client.read(fanoutsByPhraseEndpoint, brandId, o)),
    fanoutsCited: (brandId: number, o: Options<FanoutsCitedOptions>) =>
      paged(client.read(fanoutsCitedEndpoint, brandId, o)),
    visibilityTopics: (brandId: number, o: Options<VisibilityTopicsOptions> = {}) =>
      whole(client.read(visibilityTopicsEndpoint, brandId, o)),
    citations: async (brandId: number, o: Options<CitationsOptions> = {}) => {
      const report = await whole(client.read(citationsEndpoint, brandId, o));
      const summary = ownershipSummary(report, brandId);
      return { ...report, rejects: [...report.rejects, ...summary.rejects], ownership: summary.records };
    },
    domainDetail: async (brandId: number, domain: string, o: Options<CitationFilters> = {}) => {
      const report = await whole(client.read(domainDetailEndpoint, brandId, { ...o, domain }));
      // The read turns the 404 of "no citation in the range" into an empty answer; a record that failed its schema is a reject.
      return { ...report, empty: report.records.length === 0 && report.rejects.length === 0 };
    },
    productRanking: (brandId: number, o: Options<ProductRankingOptions> = {}) =>
      paged(client.read(productRankingEndpoint, brandId, o)),
    swotAnswers: (brandId: number, statementId: number, o: Options<Omit<SwotAnswersOptions, 'statementId'>> = {}) =>
      paged(client.read(swotAnswersEndpoint, brandId, { ...o, statementId })),
  };
}
