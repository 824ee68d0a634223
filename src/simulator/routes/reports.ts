import { simulatorNotFound } from '../sim-errors.js';
import { normalizeDomain } from '../reports/citation-filter.js';
import { citationsReport } from '../reports/citations.js';
import { domainDetail } from '../reports/domain-detail.js';
import { productRanking } from '../reports/product-ranking.js';
import { visibilityReport } from '../reports/visibility.js';
import { LIMITS, PERIOD_VALUES } from '../spec-enums.js';
import { pagedBody, readAnswerFilter, readCitationFilter, readPaging } from './common.js';
import type { Route } from './route.js';

/** Endpoint 16. */
export const visibilityRoute: Route = {
  method: 'GET',
  pattern: /^\/reports\/visibility\/topics$/,
  name: 'visibility',
  handle(context) {
    const { sim, world, query } = context;
    const filter = readAnswerFilter(context, { engineDefault: 'brand', topics: true });
    const includeScenarios = query.bool('include_scenarios') ?? false;
    query.echo('include_scenarios', includeScenarios);
    query.finish();
    const rows = visibilityReport(sim.store, world, filter, includeScenarios);
    return { body: { data: rows, info: { query: query.echoed(), total_rows: rows.length } } };
  },
};

/** Endpoint 17. */
export const citationsRoute: Route = {
  method: 'GET',
  pattern: /^\/reports\/citations$/,
  name: 'citations',
  handle(context) {
    const { sim, world, query } = context;
    const filter = readAnswerFilter(context, { engineDefault: 'all', topics: true });
    const citationFilter = readCitationFilter(query);
    const period = query.oneOf('period', PERIOD_VALUES) ?? 'day';
    query.echo('period', period);
    const domains = query.array('domains', { min: 1, max: LIMITS.domainsFilterMax })?.map(normalizeDomain);
    query.echo('domains', domains);
    query.finish();
    const { rows, summary } = citationsReport(sim.store, world, filter, citationFilter, period, domains);
    return { body: { data: rows, info: { query: query.echoed(), total_rows: rows.length, summary } } };
  },
};

/** Endpoint 18; 404 when the domain has no citation in the range. */
export const domainDetailRoute: Route = {
  method: 'GET',
  pattern: /^\/citations\/domains\/([^/]+)$/,
  name: 'domain-detail',
  handle(context) {
    const { sim, world, query, params } = context;
    const filter = readAnswerFilter(context, { engineDefault: 'all', topics: true });
    const citationFilter = readCitationFilter(query);
    query.finish();
    const domain = normalizeDomain(params[0]!);
    const detail = domainDetail(sim.store, world, filter, citationFilter, domain);
    if (!detail) throw simulatorNotFound(`no citation of ${domain} in the range`);
    return { body: { data: detail, info: { query: query.echoed() } } };
  },
};

/** Endpoint 19. */
export const productRankingRoute: Route = {
  method: 'GET',
  pattern: /^\/products\/ranking$/,
  name: 'product-ranking',
  handle(context) {
    const { sim, world, query } = context;
    const filter = readAnswerFilter(context, { engineDefault: 'brand', topics: true });
    const metric = query.oneOf('metric', ['visibility', 'recommendation'] as const) ?? 'visibility';
    const subject = query.oneOf('subject', ['brand', 'competitor'] as const) ?? 'brand';
    const order = query.oneOf('order', ['asc', 'desc'] as const) ?? 'desc';
    const paging = readPaging(query, LIMITS.productRankingPageSizeMax);
    query.finish();
    const { rows, shoppingConversations } = productRanking(sim.store, world, filter, metric, subject, order);
    return { body: pagedBody(rows, paging, { shopping_conversations: shoppingConversations }) };
  },
};
