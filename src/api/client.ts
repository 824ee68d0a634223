import type { z } from 'zod';
import type { ApiConfig } from '../config/schema.js';
import { requireApiSettings } from '../config/api-settings.js';
import { registerSecret, type Logger } from '../log.js';
import type { Dispatcher } from 'undici';
import { NotFoundError, TransientError } from './errors.js';
import { MAX_PAGE_SIZE, PRODUCT_RANKING_MAX_PAGE_SIZE, cappedPageSize, paginate, type Page, type PagingSummary } from './paginate.js';
import { brandPath, buildQuery, withQuery, type QueryParams } from './query.js';
import { createMemoryRateBudget, type RateBudget } from './rate-budget.js';
import * as s from './schemas.js';
import { Transport, type ApiRequestEvent } from './transport.js';
import { describeZodIssues, validateRecords, type Rejection } from './validate.js';

export interface ApiClientOptions {
  /** Where retries and 429s are logged (never with the key); default: silent. */
  logger?: Logger;
  /** The key's request budget; default an in-memory budget at `api.requestsPerSecond` (one process only). */
  budget?: RateBudget;
  /** Called after every HTTP attempt, to count requests, retries and 429s. */
  onRequest?: (event: ApiRequestEvent) => void;
  /** Aborts every request of this client. */
  signal?: AbortSignal;
  /** Wait out 429s inside the client and retry (bounded); default false: throw `RateLimitedError` to the caller. */
  retryRateLimited?: boolean;
  /** Replaces the connection pool (tests use undici's MockAgent). */
  dispatcher?: Dispatcher;
}

/** A day (`YYYY-MM-DD`, or a `Date` whose UTC day is sent) or an ISO 8601 datetime string. */
export type DayOrTime = string | Date;

interface RangeFilter {
  startDate?: DayOrTime;
  endDate?: DayOrTime;
}
interface EngineFilter {
  /** Engine identifiers; default `api.engines`, and when that is empty none (the API's defaults apply). */
  engines?: readonly string[];
}
interface CallOptions {
  signal?: AbortSignal;
}
interface PagingOptions extends CallOptions {
  /** Records per page; default `api.pageSize`, capped at the endpoint's limit. */
  pageSize?: number;
}

export interface TrackedUrlsOptions extends RangeFilter, EngineFilter, PagingOptions {
  topicIds?: readonly number[];
  groupId?: number;
  ungrouped?: boolean;
  search?: string;
  sort?: 'created_at' | 'citations';
  order?: 'asc' | 'desc';
}
export interface CompetitorsOptions extends CallOptions {
  /** true: only competitors the account confirmed; false: platform suggestions too. */
  confirmed?: boolean;
}
export interface TemplatesOptions extends PagingOptions {
  type?: s.TemplateType;
  title?: string;
}
export type ArticlesOptions = PagingOptions;
export type ContentAnalysesOptions = PagingOptions;
export interface ConversationsOptions extends RangeFilter, EngineFilter, PagingOptions {
  topicId?: number;
  scenarioId?: number;
  mentioned?: boolean;
  recommended?: boolean;
  sort?: 'newest' | 'oldest';
}
export interface FanoutsByPhraseOptions extends PagingOptions {
  phrase: string;
}
export interface FanoutsCitedOptions extends RangeFilter, EngineFilter, PagingOptions {
  topicIds?: readonly number[];
  url?: string;
  domain?: string;
}
export interface VisibilityTopicsOptions extends RangeFilter, EngineFilter, CallOptions {
  topicIds?: readonly number[];
  includeScenarios?: boolean;
}
export interface CitationFilters extends RangeFilter, EngineFilter, CallOptions {
  topicIds?: readonly number[];
  ownership?: readonly s.Ownership[];
  contentTypes?: readonly s.ContentType[];
  sentiment?: readonly s.Sentiment[];
  /** true: only pages of the brand; false: only pages of others; absent: every page. */
  firstParty?: boolean;
}
export interface CitationsOptions extends CitationFilters {
  period?: s.Period;
  /** 1 to 20 root domains (spec, "Limits"), each with its own series. */
  domains?: readonly string[];
}
export type DomainDetailOptions = CitationFilters;
export interface ProductRankingOptions extends RangeFilter, EngineFilter, PagingOptions {
  topicIds?: readonly number[];
  metric?: 'visibility' | 'recommendation';
  subject?: 'brand' | 'competitor';
  order?: 'asc' | 'desc';
}
export interface SwotAnswersOptions extends RangeFilter, EngineFilter, PagingOptions {
  competitors?: ReadonlyArray<string | number>;
  type?: s.SwotType;
}

/** The answer of a single-shot (unpaged) endpoint. */
export interface Report<T, I> {
  records: T[];
  rejects: Rejection[];
  info: I;
  totalRows: number | undefined;
}

export interface CitationsReport extends Report<s.CitationSeriesRow, CitationsInfo> {
  /** `info.summary.by_ownership`, validated entry by entry (invalid entries are in `rejects`). */
  ownership: s.OwnershipSummaryEntry[];
}

/** Domain detail: one record, or none with `empty` when the domain has no citation in the range (a 404). */
export interface DomainDetailResult {
  records: s.DomainDetail[];
  rejects: Rejection[];
  info: DomainDetailInfo;
  empty: boolean;
}

export type TrackedUrlsInfo = z.infer<typeof s.trackedUrlsEnvelopeSchema>['info'];
export type PagedInfo = z.infer<typeof s.pagedEnvelopeSchema>['info'];
export type ArticlesInfo = z.infer<typeof s.articlesEnvelopeSchema>['info'];
export type ProductRankingInfo = z.infer<typeof s.productRankingEnvelopeSchema>['info'];
export type SwotInfo = z.infer<typeof s.swotEnvelopeSchema>['info'];
export type VisibilityInfo = z.infer<typeof s.visibilityEnvelopeSchema>['info'];
export type CitationsInfo = z.infer<typeof s.citationsEnvelopeSchema>['info'];
export type DomainDetailInfo = NonNullable<z.infer<typeof s.domainDetailEnvelopeSchema>['info']>;

export type PageStream<T, I extends PagedInfo = PagedInfo> = AsyncGenerator<Page<T, I>, PagingSummary>;

/** The typed read endpoints of the spec (3, 7, 10–20). Paged endpoints are async generators of pages. */
export interface ApiClient {
  trackedUrls(brandId: number, options?: TrackedUrlsOptions): PageStream<s.TrackedUrl, TrackedUrlsInfo>;
  competitors(brandId: number, options?: CompetitorsOptions): Promise<Report<s.Competitor, PagedInfo>>;
  templates(brandId: number, options?: TemplatesOptions): PageStream<s.Template>;
  articles(brandId: number, options?: ArticlesOptions): PageStream<s.Article, ArticlesInfo>;
  contentAnalyses(brandId: number, options?: ContentAnalysesOptions): PageStream<s.ContentAnalysis>;
  conversations(brandId: number, options?: ConversationsOptions): PageStream<s.Conversation>;
  fanoutsByPhrase(brandId: number, options: FanoutsByPhraseOptions): PageStream<s.FanoutByPhrase>;
  fanoutsCited(brandId: number, options: FanoutsCitedOptions): PageStream<s.FanoutCited>;
  visibilityTopics(brandId: number, options?: VisibilityTopicsOptions): Promise<Report<s.VisibilityRow, VisibilityInfo>>;
  citations(brandId: number, options?: CitationsOptions): Promise<CitationsReport>;
  domainDetail(brandId: number, domain: string, options?: DomainDetailOptions): Promise<DomainDetailResult>;
  productRanking(brandId: number, options?: ProductRankingOptions): PageStream<s.ProductRankingRow, ProductRankingInfo>;
  swotAnswers(brandId: number, statementId: number, options?: SwotAnswersOptions): PageStream<s.SwotAnswer, SwotInfo>;
  /** Closes the connection pool. */
  close(): Promise<void>;
}

/**
 * The API client: the only code that speaks HTTP to the API. Needs `api.url` and `api.apiKey`.
 */
export function createApiClient(config: ApiConfig, options: ApiClientOptions = {}): ApiClient {
  const api = requireApiSettings(config);
  registerSecret(api.apiKey);

  const transport = new Transport(
    api,
    {
      logger: options.logger,
      budget: options.budget ?? createMemoryRateBudget({ requestsPerSecond: config.requestsPerSecond }),
      onRequest: options.onRequest,
      signal: options.signal,
      retryRateLimited: options.retryRateLimited,
      dispatcher: options.dispatcher,
    },
  );
  const encoding = { params: config.params, arrayFormat: config.arrayFormat };
  const engines = (asked: readonly string[] | undefined) => asked ?? (config.engines.length ? config.engines : undefined);

  async function getEnvelope<E>(path: string, query: QueryParams, schema: z.ZodType<E>, signal?: AbortSignal): Promise<E> {
    const endpoint = `GET ${path}`;
    return transport.get({ path: withQuery(path, buildQuery(query, encoding)), endpoint, signal }, (body) => {
      const result = schema.safeParse(body);
      if (result.success) return result.data;
      throw new TransientError(
        `${endpoint}: the answer's envelope does not match the spec: ${describeZodIssues(result.error).slice(0, 5).join('; ')}`,
        { endpoint },
        'bad_envelope',
      );
    });
  }

  function paged<T, I extends PagedInfo>(
    path: string,
    query: QueryParams,
    envelope: z.ZodType<{ data: unknown[]; info: I }>,
    schema: z.ZodType<T>,
    options: PagingOptions,
    limit: number = MAX_PAGE_SIZE,
  ): PageStream<T, I> {
    return paginate<T, I>({
      schema,
      pageSize: cappedPageSize(options.pageSize, config.pageSize, limit),
      describe: (page) => `GET ${path} page ${page}`,
      fetchPage: (page, pageSize) => getEnvelope(path, { ...query, page, page_size: pageSize }, envelope, options.signal),
    });
  }

  async function report<T, I extends { total_rows?: number | null | undefined }>(
    path: string,
    query: QueryParams,
    envelope: z.ZodType<{ data: unknown[]; info: I }>,
    schema: z.ZodType<T>,
    signal: AbortSignal | undefined,
  ): Promise<Report<T, I>> {
    const answer = await getEnvelope(path, query, envelope, signal);
    const { records, rejects } = validateRecords(schema, answer.data, `GET ${path}`);
    return { records, rejects, info: answer.info, totalRows: answer.info.total_rows ?? undefined };
  }

  const citationFilters = (o: CitationFilters): QueryParams => ({
    start_date: o.startDate,
    end_date: o.endDate,
    engines: engines(o.engines),
    topic_ids: o.topicIds,
    ownership: o.ownership,
    content_types: o.contentTypes,
    sentiment: o.sentiment,
    first_party: o.firstParty,
  });

  return {
    trackedUrls: (brandId, o = {}) =>
      paged(
        brandPath(brandId, 'tracked-urls'),
        {
          start_date: o.startDate,
          end_date: o.endDate,
          engines: engines(o.engines),
          topic_ids: o.topicIds,
          group_id: o.groupId,
          ungrouped: o.ungrouped,
          search: o.search,
          sort: o.sort,
          order: o.order,
        },
        s.trackedUrlsEnvelopeSchema,
        s.trackedUrlSchema,
        o,
      ),

    competitors: (brandId, o = {}) =>
      report(brandPath(brandId, 'competitors'), { confirmed: o.confirmed }, s.pagedEnvelopeSchema, s.competitorSchema, o.signal),

    templates: (brandId, o = {}) =>
      paged(brandPath(brandId, 'templates'), { type: o.type, title: o.title }, s.pagedEnvelopeSchema, s.templateSchema, o),

    articles: (brandId, o = {}) => paged(brandPath(brandId, 'articles'), {}, s.articlesEnvelopeSchema, s.articleSchema, o),

    contentAnalyses: (brandId, o = {}) =>
      paged(brandPath(brandId, 'content-analyses'), {}, s.pagedEnvelopeSchema, s.contentAnalysisSchema, o),

    conversations: (brandId, o = {}) =>
      paged(
        brandPath(brandId, 'conversations'),
        {
          start_date: o.startDate,
          end_date: o.endDate,
          engines: engines(o.engines),
          topic_id: o.topicId,
          scenario_id: o.scenarioId,
          mentioned: o.mentioned,
          recommended: o.recommended,
          sort: o.sort,
        },
        s.pagedEnvelopeSchema,
        s.conversationSchema,
        o,
      ),

    fanoutsByPhrase: (brandId, o) =>
      paged(brandPath(brandId, 'fanouts', 'by-phrase'), { phrase: o.phrase }, s.pagedEnvelopeSchema, s.fanoutByPhraseSchema, o),

    fanoutsCited: (brandId, o) =>
      paged(
        brandPath(brandId, 'fanouts', 'cited'),
        { start_date: o.startDate, end_date: o.endDate, engines: engines(o.engines), topic_ids: o.topicIds, url: o.url, domain: o.domain },
        s.pagedEnvelopeSchema,
        s.fanoutCitedSchema,
        o,
      ),

    visibilityTopics: (brandId, o = {}) =>
      report(
        brandPath(brandId, 'reports', 'visibility', 'topics'),
        {
          start_date: o.startDate,
          end_date: o.endDate,
          engines: engines(o.engines),
          topic_ids: o.topicIds,
          include_scenarios: o.includeScenarios,
        },
        s.visibilityEnvelopeSchema,
        s.visibilityRowSchema,
        o.signal,
      ),

    citations: async (brandId, o = {}) => {
      const path = brandPath(brandId, 'reports', 'citations');
      const result = await report(
        path,
        { ...citationFilters(o), period: o.period, domains: o.domains },
        s.citationsEnvelopeSchema,
        s.citationSeriesRowSchema,
        o.signal,
      );
      const summary = validateRecords(s.ownershipSummaryEntrySchema, result.info.summary?.by_ownership ?? [], `GET ${path} info.summary.by_ownership`);
      return { ...result, rejects: [...result.rejects, ...summary.rejects], ownership: summary.records };
    },

    domainDetail: async (brandId, domain, o = {}) => {
      const path = brandPath(brandId, 'citations', 'domains', domain);
      try {
        const answer = await getEnvelope(path, citationFilters(o), s.domainDetailEnvelopeSchema, o.signal);
        const { records, rejects } = validateRecords(s.domainDetailSchema, [answer.data], `GET ${path}`);
        return { records, rejects, info: answer.info ?? {}, empty: false };
      } catch (error) {
        // "A domain with no citation in the range gives 404" (endpoint 18): no data, not a failure.
        if (error instanceof NotFoundError) return { records: [], rejects: [], info: {}, empty: true };
        throw error;
      }
    },

    productRanking: (brandId, o = {}) =>
      paged(
        brandPath(brandId, 'products', 'ranking'),
        {
          start_date: o.startDate,
          end_date: o.endDate,
          engines: engines(o.engines),
          topic_ids: o.topicIds,
          metric: o.metric,
          subject: o.subject,
          order: o.order,
        },
        s.productRankingEnvelopeSchema,
        s.productRankingRowSchema,
        o,
        PRODUCT_RANKING_MAX_PAGE_SIZE,
      ),

    swotAnswers: (brandId, statementId, o = {}) =>
      paged(
        brandPath(brandId, 'swot', statementId),
        { start_date: o.startDate, end_date: o.endDate, engines: engines(o.engines), competitors: o.competitors, type: o.type },
        s.swotEnvelopeSchema,
        s.swotAnswerSchema,
        o,
      ),

    close: () => transport.close(),
  };
}
