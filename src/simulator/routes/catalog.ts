import { ARTICLE_STATUSES, LIMITS, TEMPLATE_TYPE_VALUES } from '../spec-enums.js';
import { platformTemplates } from '../world/world-content.js';
import type { Template } from '../world/world-types.js';
import { pageOf, pagedBody, pagedInfo, readPaging } from './common.js';
import type { Route } from './route.js';

const newestFirst = (a: { created_at: string; id: number }, b: { created_at: string; id: number }) =>
  b.created_at.localeCompare(a.created_at) || b.id - a.id;

/** Endpoint 7: `confirmed` true (default) gives confirmed competitors; false adds the platform's suggestions. */
export const competitorsRoute: Route = {
  method: 'GET',
  pattern: /^\/competitors$/,
  name: 'competitors',
  handle({ world, query }) {
    const confirmed = query.bool('confirmed') ?? true;
    query.finish();
    const data = world.competitors.filter((c) => !confirmed || c.is_actual).map((c) => ({ ...c }));
    return { body: { data, info: { total_rows: data.length } } };
  },
};

/** Endpoint 10. A brand with no template of its own gets copies of the platform's, with ids of its own. */
export const templatesRoute: Route = {
  method: 'GET',
  pattern: /^\/templates$/,
  name: 'templates',
  handle({ sim, world, query }) {
    const type = query.oneOf('type', TEMPLATE_TYPE_VALUES);
    const title = query.string('title', { min: 1, max: LIMITS.templateTitleSearchMax });
    const paging = readPaging(query);
    query.finish();
    const own: Template[] =
      world.templates.length > 0
        ? world.templates
        : platformTemplates(sim.firstDay).map((template) => ({
            ...template,
            id: world.brand.id * 100_000 + 90_000 + template.id,
          }));
    const needle = title?.toLowerCase();
    const rows = own
      .filter(
        (t) =>
          (type === undefined || t.type === type) && (needle === undefined || t.title.toLowerCase().includes(needle)),
      )
      .sort(newestFirst);
    return { body: pagedBody(rows, paging) };
  },
};

/**
 * Endpoint 11. The spec names neither the array filter nor its meaning; here it is `filter`, a list of
 * article statuses (draft, in_progress, published, archived). The counters count every article of the brand.
 */
export const articlesRoute: Route = {
  method: 'GET',
  pattern: /^\/articles$/,
  name: 'articles',
  handle({ world, query }) {
    const statuses = query.array('filter', { min: 1, values: ARTICLE_STATUSES });
    const paging = readPaging(query);
    query.finish();
    const count = (status: string) => world.articles.filter((a) => a.status === status).length;
    const rows = world.articles.filter((a) => !statuses || statuses.includes(a.status)).sort(newestFirst);
    return {
      body: {
        data: pageOf(rows, paging),
        info: {
          draft: count('draft'),
          in_progress: count('in_progress'),
          published: count('published'),
          ...pagedInfo(paging, rows.length),
        },
      },
    };
  },
};

/** Endpoint 12: info holds total_rows only, as the spec shows. */
export const contentAnalysesRoute: Route = {
  method: 'GET',
  pattern: /^\/content-analyses$/,
  name: 'content-analyses',
  handle({ world, query }) {
    const paging = readPaging(query);
    query.finish();
    const rows = [...world.contentAnalyses].sort(newestFirst);
    return { body: { data: pageOf(rows, paging), info: { total_rows: rows.length } } };
  },
};
