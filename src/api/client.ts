import type { ApiConfig } from '../config/schema.js';
import { requireApiSettings } from '../config/api-settings.js';
import { registerSecret } from '../log.js';
import type { AnyEndpoint, Endpoint } from './endpoint.js';
import { TransientError, isEmptyAnswer, readErrorEnvelope } from './errors.js';
import { cappedPageSize, paginate, type Page, type PagingInfo, type PagingSummary } from './paginate.js';
import { endpointMapping } from './param-names.js';
import { brandPath, buildQuery, withQuery, type QueryEncoding, type QueryParams } from './query.js';
import { readSettingsOf } from './read-settings.js';
import { createMemoryRateBudget, type RateBudget } from './rate/rate-budget.js';
import { Transport, type TransportOptions } from './transport.js';
import { describeZodIssues, validateRecords } from './validate.js';

export interface ApiClientOptions extends TransportOptions {
  /** The key's request budget; default an in-memory budget at `api.requestsPerSecond` (one process only). */
  budget?: RateBudget | undefined;
}

/** What every read takes besides the endpoint's own options. */
export interface ReadOptions {
  signal?: AbortSignal;
  /** Records per page of a paged endpoint; default `api.pageSize`, capped at the endpoint's limit. */
  pageSize?: number;
  /** Pages of a paged endpoint to pass over before the first one read (doctor reads a set's last page alone); default 0. */
  skipPages?: number;
}

/**
 * One page of a read. A single-shot endpoint (a report) gives one, without `page`/`requestInfo`; a paged one gives
 * paginate's pages (src/api/paginate.ts).
 */
export interface ReadPage<R, I> extends Pick<Page<R, I & PagingInfo>, 'records' | 'rejects' | 'totalRows'> {
  info: I;
  requestInfo?: Page<R, I & PagingInfo>['requestInfo'];
  /**
   * The engines filter the read sent (the call's own, else `api.engines`), when it sent one: for an endpoint that does
   * not echo its query, the only record of which engines its numbers cover.
   */
  sentEngines?: readonly string[];
  /** How the read went on the wire, in what the spec does not show (src/api/read-settings.ts). */
  readWith?: string;
}

export type PageStream<R, I> = AsyncGenerator<ReadPage<R, I>, PagingSummary | void>;

/** How a read was sent: its wire settings, and the engines filter when it sent one. */
function readRecordOf(query: QueryParams, encoding: QueryEncoding, firstPage?: 0 | 1) {
  const engines = query.engines;
  const sent = Array.isArray(engines) && engines.length > 0 ? { sentEngines: engines.map(String) } : {};
  return { readWith: readSettingsOf(query, encoding, firstPage), ...sent };
}

/** Paginate's pages, each saying how the read was sent; its summary and an early end pass through. */
async function* withReadRecord<R, I>(
  pages: AsyncGenerator<Page<R, I & PagingInfo>, PagingSummary>,
  record: Pick<ReadPage<R, I>, 'sentEngines' | 'readWith'>,
): PageStream<R, I> {
  try {
    for (;;) {
      const next = await pages.next();
      if (next.done) return next.value;
      yield { ...next.value, ...record };
    }
  } finally {
    await pages.return(undefined as never);
  }
}

/** The API client: one generic read for every endpoint declaration (src/api/endpoint.ts). */
export interface ApiClient {
  read<R, I, O>(endpoint: Endpoint<R, I, O>, brandId: number, options: O & ReadOptions): PageStream<R, I>;
  /** Closes the connection pool. */
  close(): Promise<void>;
}

/**
 * The transport of the API's reads and writes alike: one rate budget, one retry policy and one set of typed errors
 * per client. Needs `api.url` and `api.apiKey`; the key is registered as a secret, so no log line carries it.
 */
export function openTransport(config: ApiConfig, options: ApiClientOptions): Transport {
  const api = requireApiSettings(config);
  registerSecret(api.apiKey);
  return new Transport(api, {
    ...options,
    budget: options.budget ?? createMemoryRateBudget({ requestsPerSecond: config.requestsPerSecond }),
  });
}

/** The API client: the only code that speaks HTTP to the API for reads. Needs `api.url` and `api.apiKey`. */
export function createApiClient(config: ApiConfig, options: ApiClientOptions = {}): ApiClient {
  const transport = openTransport(config, options);
  /** How one endpoint's query goes on the wire: its names (`api.params`, its own `api.endpointParams` over them). */
  function encodingOf(endpoint: AnyEndpoint): QueryEncoding {
    return {
      params: endpointMapping(config.params, config.endpointParams, endpoint.name),
      arrayFormat: config.arrayFormat,
    };
  }

  /** One answer of `read`'s endpoint, its envelope checked; an envelope that does not match is transient. */
  async function getEnvelope<I>(
    read: Endpoint<unknown, I, never>,
    path: string,
    query: QueryParams,
    signal?: AbortSignal,
    notFoundIsEmpty?: boolean,
  ) {
    const endpoint = `GET ${path}`;
    return transport.send(
      { method: 'GET', path: withQuery(path, buildQuery(query, encodingOf(read))), endpoint, signal, notFoundIsEmpty },
      (body) => {
        const result = read.envelope.safeParse(body);
        if (result.success) return result.data;
        // The spec's error envelope in a 200: the API's own words say what failed, where "data: expected array" did not.
        const envelope = readErrorEnvelope(body);
        if (
          (envelope.apiCode !== undefined || envelope.message !== undefined) &&
          (body as { data?: unknown }).data === undefined
        ) {
          const said = [envelope.apiCode, envelope.message].filter((part) => part !== undefined).join(': ');
          throw new TransientError(
            `${endpoint}: HTTP 200 with the API's error envelope instead of data: ${said}${envelope.requestId ? ` (request ${envelope.requestId})` : ''}`,
            { endpoint, status: 200, ...envelope },
            'bad_envelope',
          );
        }
        throw new TransientError(
          `${endpoint}: the answer's envelope does not match the spec: ${describeZodIssues(result.error).slice(0, 5).join('; ')}`,
          { endpoint },
          'bad_envelope',
        );
      },
    );
  }

  /** The endpoint's query; an engines filter the caller left out is `api.engines` (none when that is empty). */
  function queryOf<O>(endpoint: Endpoint<unknown, unknown, O>, options: O): QueryParams {
    const query: QueryParams = { ...endpoint.query(options) };
    if (endpoint.params.includes('engines') && query.engines === undefined && config.engines.length) {
      query.engines = config.engines;
    }
    return query;
  }

  async function* readWhole<R, I, O>(
    endpoint: Endpoint<R, I, O>,
    path: string,
    options: O & ReadOptions,
  ): PageStream<R, I> {
    const query = queryOf(endpoint, options);
    const sent = readRecordOf(query, encodingOf(endpoint));
    let answer: { data?: unknown; info?: I | null | undefined };
    try {
      answer = await getEnvelope(endpoint, path, query, options.signal, endpoint.notFoundIsEmpty);
    } catch (error) {
      // Only the API's own 404 reads as empty: a gateway's 404 for a wrong path must not replace a day's rows.
      if (endpoint.notFoundIsEmpty && isEmptyAnswer(error)) {
        yield { records: [], rejects: [], totalRows: undefined, info: {} as I, ...sent };
        return;
      }
      throw error;
    }
    // A 200 whose data is null is the other way an API says a domain has no citations: read as an empty page.
    const data = endpoint.single
      ? answer.data === null && endpoint.notFoundIsEmpty
        ? []
        : [answer.data]
      : (answer.data as unknown[]);
    const { records, rejects } = validateRecords(endpoint.record, data, `GET ${path}`);
    const info = answer.info ?? ({} as I);
    yield { records, rejects, info, totalRows: (info as PagingInfo).total_rows ?? undefined, ...sent };
  }

  function read<R, I, O>(endpoint: Endpoint<R, I, O>, brandId: number, readOptions: O & ReadOptions): PageStream<R, I> {
    const path = brandPath(brandId, ...endpoint.path(readOptions));
    if (endpoint.maxPageSize === undefined) return readWhole(endpoint, path, readOptions);
    const query = queryOf(endpoint, readOptions);
    const pages = paginate<R, I & PagingInfo>({
      schema: endpoint.record,
      pageSize: cappedPageSize(readOptions.pageSize, config.pageSize, endpoint.maxPageSize),
      firstPage: config.firstPage,
      skipPages: readOptions.skipPages,
      describe: (page) => `GET ${path} page ${page}`,
      fetchPage: async (page, pageSize) => {
        const answer = await getEnvelope(endpoint, path, { ...query, page, page_size: pageSize }, readOptions.signal);
        return { data: answer.data as unknown[], info: (answer.info ?? {}) as I & PagingInfo };
      },
    });
    return withReadRecord(pages, readRecordOf(query, encodingOf(endpoint), config.firstPage));
  }

  return {
    read,
    close: () => transport.close(),
  };
}
