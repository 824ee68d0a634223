import type { AnyEndpoint, ApiClient, ReadPage } from '../../src/api/index.js';
import { articlesEndpoint } from '../../src/streams/articles.js';
import { citationsEndpoint } from '../../src/streams/citations.js';
import { competitorsEndpoint } from '../../src/streams/competitors.js';
import { contentAnalysesEndpoint } from '../../src/streams/content-analyses.js';
import { conversationsEndpoint } from '../../src/streams/conversations.js';
import { domainDetailEndpoint } from '../../src/streams/domain-details.js';
import { fanoutsByPhraseEndpoint } from '../../src/streams/fanouts-by-phrase.js';
import { fanoutsCitedEndpoint } from '../../src/streams/fanouts-cited.js';
import { productRankingEndpoint } from '../../src/streams/product-ranking.js';
import { swotAnswersEndpoint } from '../../src/streams/swot.js';
import { templatesEndpoint } from '../../src/streams/templates.js';
import { trackedUrlsEndpoint } from '../../src/streams/tracked-urls.js';
import { visibilityTopicsEndpoint } from '../../src/streams/visibility.js';
import { runSlice, type SliceChunk, type SliceReadResult } from '../../src/streams/run-slice.js';
import type { Dimensions, RowsByTable, SlicePlan, SlicePlanInput, StreamDefinition } from '../../src/streams/stream.js';
import { parseConfig, type SyncConfig } from '../../src/configuration.js';

export const BRAND = 7;

/** The planner's input for one brand: days, config overrides and dimensions. */
export function planInput(
  days: string[],
  options: { sync?: Partial<SyncConfig>; dimensions?: Partial<Dimensions> } = {},
): SlicePlanInput<any> {
  return {
    brandId: BRAND,
    days,
    sync: { ...parseConfig({}).sync, ...options.sync },
    dimensions: { domains: [], topicIds: [], pages: [], engines: [], ...options.dimensions },
  };
}

/** A slice as planned for a single day, or over a window. */
export function daySlice(day: string, params: SlicePlan['params'] = {}): SlicePlan {
  return { key: day, day, from: day, to: day, params };
}

/** Reads one slice through the real runner into memory (the client: the few methods the stream calls); returns the rows by table and the runner's result. */
export async function readSlice(
  stream: StreamDefinition,
  slice: SlicePlan,
  client: object,
): Promise<{ tables: RowsByTable; result: SliceReadResult; chunks: SliceChunk[] }> {
  const chunks: SliceChunk[] = [];
  const sink = {
    write: async (chunk: SliceChunk) => void chunks.push(chunk),
    reset: async () => void (chunks.length = 0),
  };
  const result = await runSlice(
    stream,
    {
      client: 'read' in client ? (client as ApiClient) : byMethodName(client as Methods),
      brandId: BRAND,
      slice,
      sync: parseConfig({}).sync,
    },
    sink,
  );
  const tables: RowsByTable = {};
  for (const chunk of chunks)
    for (const [table, rows] of Object.entries(chunk.tables)) (tables[table] ??= []).push(...rows);
  return { tables, result, chunks };
}

/** A paged client method serving the given pages, recording the options it was called with. */
export function pagedMethod<T>(pages: Array<{ records: T[]; info: Record<string, unknown> }>, calls: unknown[][]) {
  return async function* (...args: unknown[]) {
    calls.push(args);
    for (const [index, page] of pages.entries()) {
      const totalRows = typeof page.info.total_rows === 'number' ? page.info.total_rows : undefined;
      yield {
        records: page.records,
        rejects: [],
        page: index + 1,
        pageSize: 100,
        totalRows,
        info: page.info,
        requestInfo: { page: index + 1, pageSize: 100, source: 'test' },
      };
    }
    return { pages: pages.length, records: 0, rejects: 0, firstTotalRows: undefined, lastTotalRows: undefined };
  };
}

/** The tables a slice declares, and every replace scope by table. */
export function scopes(stream: StreamDefinition, slice: SlicePlan): Record<string, unknown> {
  return Object.fromEntries(
    stream
      .targets({ brandId: BRAND, slice })
      .map((target) => [target.table, target.mode === 'replace' ? target.scope : 'merge']),
  );
}

/** Every row lies inside its table's replace scope (the loader refuses the slice otherwise). */
export function outsideScope(stream: StreamDefinition, slice: SlicePlan, tables: RowsByTable): string[] {
  const problems: string[] = [];
  const targets = stream.targets({ brandId: BRAND, slice });
  for (const [table, rows] of Object.entries(tables)) {
    const target = targets.find((t) => t.table === table);
    if (!target) {
      problems.push(`${table}: no target`);
      continue;
    }
    if (target.mode !== 'replace') continue;
    for (const row of rows) {
      for (const [column, expected] of Object.entries(target.scope)) {
        const value = row[column];
        const inside = Array.isArray(expected) ? (expected as unknown[]).includes(value) : value === expected;
        if (!inside) problems.push(`${table}.${column} = ${JSON.stringify(value)} outside ${JSON.stringify(expected)}`);
      }
    }
  }
  return problems;
}

type Methods = Record<string, (...args: any[]) => any>;
type Report = ReadPage<unknown, unknown> & { ownership?: unknown[] };

async function* onePage(report: Promise<Report>) {
  const { ownership, ...page } = await report;
  // The citations report's summary comes back inside `info`, where the stream validates it.
  const info = page.info as { summary?: object };
  yield ownership ? { ...page, info: { ...info, summary: { ...info.summary, by_ownership: ownership } } } : page;
}

/**
 * A client whose one `read` serves each endpoint from a fake method named after it (the tests' mocks, written with the
 * arguments a caller of that endpoint passes: the brand, a domain or statement id, the options).
 */
function byMethodName(methods: Methods): ApiClient {
  const routes = new Map<AnyEndpoint, (brandId: number, options: Record<string, unknown>) => AsyncIterable<unknown>>([
    [trackedUrlsEndpoint, (b, o) => methods.trackedUrls!(b, o)],
    [templatesEndpoint, (b, o) => methods.templates!(b, o)],
    [articlesEndpoint, (b, o) => methods.articles!(b, o)],
    [contentAnalysesEndpoint, (b, o) => methods.contentAnalyses!(b, o)],
    [conversationsEndpoint, (b, o) => methods.conversations!(b, o)],
    [fanoutsByPhraseEndpoint, (b, o) => methods.fanoutsByPhrase!(b, o)],
    [fanoutsCitedEndpoint, (b, o) => methods.fanoutsCited!(b, o)],
    [productRankingEndpoint, (b, o) => methods.productRanking!(b, o)],
    [competitorsEndpoint, (b, o) => onePage(methods.competitors!(b, o))],
    [visibilityTopicsEndpoint, (b, o) => onePage(methods.visibilityTopics!(b, o))],
    [citationsEndpoint, (b, o) => onePage(methods.citations!(b, o))],
    [domainDetailEndpoint, (b, { domain, ...o }) => onePage(methods.domainDetail!(b, domain, o))],
    [swotAnswersEndpoint, (b, { statementId, ...o }) => methods.swotAnswers!(b, statementId, o)],
  ]);
  return {
    read: (endpoint, brandId, options) => routes.get(endpoint)!(brandId, options as Record<string, unknown>) as never,
    close: async () => undefined,
  };
}
