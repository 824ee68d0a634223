import type { ApiClient, PageStream, ReadOptions, ReadPage } from '../api/client.js';
import type { Page, PagingInfo, PagingSummary } from '../api/paginate.js';
import type { Rejection } from '../api/validate.js';
import { articlesEndpoint, type Article, type ArticlesInfo } from '../streams/articles.js';
import {
  citationsEndpoint,
  ownershipSummary,
  type CitationSeriesRow,
  type CitationsInfo,
  type CitationsOptions,
  type OwnershipSummaryEntry,
} from '../streams/citations.js';
import type { CitationFilters } from '../streams/citation-filters.js';
import { competitorsEndpoint, type Competitor, type CompetitorsOptions } from '../streams/competitors.js';
import { contentAnalysesEndpoint, type ContentAnalysis } from '../streams/content-analyses.js';
import { conversationsEndpoint, type Conversation, type ConversationsOptions } from '../streams/conversations.js';
import { domainDetailEndpoint, type DomainDetail, type DomainDetailInfo } from '../streams/domain-details.js';
import {
  fanoutsByPhraseEndpoint,
  type FanoutByPhrase,
  type FanoutsByPhraseOptions,
} from '../streams/fanouts-by-phrase.js';
import { fanoutsCitedEndpoint, type FanoutCited, type FanoutsCitedOptions } from '../streams/fanouts-cited.js';
import {
  productRankingEndpoint,
  type ProductRankingInfo,
  type ProductRankingOptions,
  type ProductRankingRow,
} from '../streams/product-ranking.js';
import { swotAnswersEndpoint, type SwotAnswer, type SwotAnswersOptions, type SwotInfo } from '../streams/swot.js';
import { templatesEndpoint, type Template, type TemplatesOptions } from '../streams/templates.js';
import {
  trackedUrlsEndpoint,
  type TrackedUrl,
  type TrackedUrlsInfo,
  type TrackedUrlsOptions,
} from '../streams/tracked-urls.js';
import { visibilityTopicsEndpoint, type VisibilityRow, type VisibilityTopicsOptions } from '../streams/visibility.js';
import type { PagedInfo } from '../api/schemas.js';

/** The answer of a single-shot (unpaged) endpoint. */
export interface Report<T, I> {
  records: T[];
  rejects: Rejection[];
  info: I;
  totalRows: number | undefined;
}

export interface CitationsReport extends Report<CitationSeriesRow, CitationsInfo> {
  /** `info.summary.by_ownership`, validated entry by entry (invalid entries are in `rejects`). */
  ownership: OwnershipSummaryEntry[];
}

/** Domain detail: one record, or none with `empty` when the domain has no citation in the range (a 404). */
export interface DomainDetailResult extends Report<DomainDetail, DomainDetailInfo> {
  empty: boolean;
}

type Options<O> = O & ReadOptions;

/** The pages of a paged endpoint: paginate's, numbered, with the summary doctor's paging probe reads. */
export type PagedStream<R, I> = AsyncGenerator<Page<R, I & PagingInfo>, PagingSummary>;

function paged<R, I>(pages: PageStream<R, I>): PagedStream<R, I> {
  // The client reads an endpoint with a page size limit through paginate, whose pages carry all of Page.
  return pages as PagedStream<R, I>;
}

/**
 * The endpoints by name, for the commands that probe them one by one (doctor, the brand check before a run): each
 * is the client's one `read` of a stream's endpoint declaration, a report gathered into its one answer.
 */
export interface EndpointReads {
  trackedUrls(brandId: number, options?: Options<TrackedUrlsOptions>): PagedStream<TrackedUrl, TrackedUrlsInfo>;
  competitors(brandId: number, options?: Options<CompetitorsOptions>): Promise<Report<Competitor, PagedInfo>>;
  templates(brandId: number, options?: Options<TemplatesOptions>): PagedStream<Template, PagedInfo>;
  articles(brandId: number, options?: ReadOptions): PagedStream<Article, ArticlesInfo>;
  contentAnalyses(brandId: number, options?: ReadOptions): PagedStream<ContentAnalysis, PagedInfo>;
  conversations(brandId: number, options?: Options<ConversationsOptions>): PagedStream<Conversation, PagedInfo>;
  fanoutsByPhrase(brandId: number, options: Options<FanoutsByPhraseOptions>): PagedStream<FanoutByPhrase, PagedInfo>;
  fanoutsCited(brandId: number, options: Options<FanoutsCitedOptions>): PagedStream<FanoutCited, PagedInfo>;
  visibilityTopics(
    brandId: number,
    options?: Options<VisibilityTopicsOptions>,
  ): Promise<Report<VisibilityRow, { query?: Record<string, unknown> | null; total_rows?: number | null }>>;
  citations(brandId: number, options?: Options<CitationsOptions>): Promise<CitationsReport>;
  domainDetail(brandId: number, domain: string, options?: Options<CitationFilters>): Promise<DomainDetailResult>;
  productRanking(
    brandId: number,
    options?: Options<ProductRankingOptions>,
  ): PagedStream<ProductRankingRow, ProductRankingInfo>;
  swotAnswers(
    brandId: number,
    statementId: number,
    options?: Options<Omit<SwotAnswersOptions, 'statementId'>>,
  ): PagedStream<SwotAnswer, SwotInfo>;
}

/** The one page of a single-shot read. */
async function whole<R, I>(pages: PageStream<R, I>): Promise<Report<R, I>> {
  let answer: ReadPage<R, I> | undefined;
  for await (const page of pages) answer ??= page;
  if (!answer) throw new Error('a single-shot read gave no answer');
  return { records: answer.records, rejects: answer.rejects, info: answer.info, totalRows: answer.totalRows };
}

export function endpointReads(client: ApiClient): EndpointReads {
  return {
    trackedUrls: (brandId, o = {}) => paged(client.read(trackedUrlsEndpoint, brandId, o)),
    competitors: (brandId, o = {}) => whole(client.read(competitorsEndpoint, brandId, o)),
    templates: (brandId, o = {}) => paged(client.read(templatesEndpoint, brandId, o)),
    articles: (brandId, o = {}) => paged(client.read(articlesEndpoint, brandId, o)),
    contentAnalyses: (brandId, o = {}) => paged(client.read(contentAnalysesEndpoint, brandId, o)),
    conversations: (brandId, o = {}) => paged(client.read(conversationsEndpoint, brandId, o)),
    fanoutsByPhrase: (brandId, o) => paged(client.read(fanoutsByPhraseEndpoint, brandId, o)),
    fanoutsCited: (brandId, o) => paged(client.read(fanoutsCitedEndpoint, brandId, o)),
    visibilityTopics: (brandId, o = {}) => whole(client.read(visibilityTopicsEndpoint, brandId, o)),
    citations: async (brandId, o = {}) => {
      const report = await whole(client.read(citationsEndpoint, brandId, o));
      const summary = ownershipSummary(report, brandId);
      return { ...report, rejects: [...report.rejects, ...summary.rejects], ownership: summary.records };
    },
    domainDetail: async (brandId, domain, o = {}) => {
      const report = await whole(client.read(domainDetailEndpoint, brandId, { ...o, domain }));
      // The read turns the 404 of "no citation in the range" into an empty answer; a record that failed its schema is a reject.
      return { ...report, empty: report.records.length === 0 && report.rejects.length === 0 };
    },
    productRanking: (brandId, o = {}) => paged(client.read(productRankingEndpoint, brandId, o)),
    swotAnswers: (brandId, statementId, o = {}) =>
      paged(client.read(swotAnswersEndpoint, brandId, { ...o, statementId })),
  };
}
