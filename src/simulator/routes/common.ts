import type { AnswerFilter } from '../world/answers.js';
import { ENGINES } from '../world/engines.js';
import type { QueryReader } from '../query.js';
import type { CitationFilter } from '../reports/citation-filter.js';
import { CONTENT_TYPE_VALUES, LIMITS, OWNERSHIP_VALUES, SENTIMENT_VALUES } from '../spec-enums.js';
import type { RouteContext } from './route.js';

/** Page size when the request sends none; the spec does not say. */
const DEFAULT_PAGE_SIZE = 20;

export interface Paging {
  page: number;
  pageSize: number;
  /** The number of the first page: 1, or 0 under the `firstPage` knob. */
  firstPage: number;
}

export function readPaging(query: QueryReader, maxPageSize: number = LIMITS.pageSizeMax): Paging {
  const { firstPage } = query.settings;
  const page = query.int('page', { min: firstPage, default: firstPage }) ?? firstPage;
  const pageSize =
    query.int('page_size', { min: 1, max: maxPageSize, default: Math.min(DEFAULT_PAGE_SIZE, maxPageSize) }) ??
    DEFAULT_PAGE_SIZE;
  return { page, pageSize, firstPage };
}

export function pageOf<T>(items: T[], paging: Paging): T[] {
  const start = (paging.page - paging.firstPage) * paging.pageSize;
  return items.slice(start, start + paging.pageSize);
}

export function pagedInfo(paging: Paging, totalRows: number) {
  return { page: paging.page, page_size: paging.pageSize, total_rows: totalRows };
}

/** A list read's answer: the page asked for, and its paging info followed by `info`'s other fields. */
export function pagedBody(rows: unknown[], paging: Paging, info: object = {}) {
  return { data: pageOf(rows, paging), info: { ...pagedInfo(paging, rows.length), ...info } };
}

/**
 * The range, engines and topics filters. `engineDefault` is the spec's default when no engine list is sent:
 * the brand's engines (visibility, product ranking, fanouts cited) or every engine (the rest).
 */
export function readAnswerFilter(
  context: RouteContext,
  settings: { engineDefault: 'brand' | 'all'; topics: boolean },
): AnswerFilter {
  const { query, sim, world } = context;
  const range = query.dateRange(sim.clock.today());
  const known =
    sim.knobs.unknownEngines === 'default'
      ? query.array('engines')?.filter((engine) => (ENGINES as readonly string[]).includes(engine))
      : query.array('engines', { values: ENGINES });
  const sent = known?.length ? known : undefined;
  const engines = sent ?? (settings.engineDefault === 'brand' ? [...world.brand.engines] : [...ENGINES]);
  query.echo('engines', engines);
  const topicIds = settings.topics ? query.intArray('topic_ids') : undefined;
  query.echo('topic_ids', topicIds);
  const everyEngine = ENGINES.every((engine) => engines.includes(engine));
  return {
    startMs: range?.startMs ?? 0,
    endMs: range?.endMs ?? 0,
    ...(everyEngine ? {} : { engines: new Set(engines) }),
    ...(topicIds ? { topicIds: new Set(topicIds) } : {}),
  };
}

/** The citation filters of endpoints 17 and 18. */
export function readCitationFilter(query: QueryReader): CitationFilter {
  const ownership = query.array('ownership', { values: OWNERSHIP_VALUES });
  const contentTypes = query.array('content_types', { values: CONTENT_TYPE_VALUES });
  const sentiment = query.array('sentiment', { values: SENTIMENT_VALUES });
  const firstParty = query.bool('first_party');
  query.echo('ownership', ownership);
  query.echo('content_types', contentTypes);
  query.echo('sentiment', sentiment);
  query.echo('first_party', firstParty);
  return {
    ...(ownership ? { ownership: new Set(ownership) } : {}),
    ...(contentTypes ? { contentTypes: new Set(contentTypes) } : {}),
    ...(sentiment ? { sentiment: new Set(sentiment) } : {}),
    ...(firstParty !== undefined ? { firstParty } : {}),
  };
}
