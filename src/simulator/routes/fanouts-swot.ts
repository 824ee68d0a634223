import { simulatorNotFound } from '../sim-errors.js';
import { normalizeDomain } from '../reports/citation-filter.js';
import { fanoutsByPhrase, fanoutsCited } from '../reports/fanouts.js';
import { swotAnswers } from '../reports/swot.js';
import { LIMITS, SWOT_TYPE_VALUES } from '../spec-enums.js';
import { pagedBody, readAnswerFilter, readPaging } from './common.js';
import type { Route } from './route.js';

/**
 * Endpoint 14. The spec's "object-valued filter group" has no described fields; parameters named
 * `filter[...]` are accepted and ignored.
 */
export const fanoutsByPhraseRoute: Route = {
  method: 'GET',
  pattern: /^\/fanouts\/by-phrase$/,
  name: 'fanouts-by-phrase',
  handle({ world, query }) {
    const phrase = query.string('phrase', { min: 1, max: LIMITS.phraseMax });
    if (phrase === undefined && !query.errors.some((e) => e.field === query.wire('phrase')))
      query.fail('phrase', 'is required');
    const paging = readPaging(query);
    for (const key of query.sentNames()) if (key.startsWith('filter[')) query.accept(key);
    query.finish();
    return { body: pagedBody(fanoutsByPhrase(world, phrase!), paging) };
  },
};

/** Endpoint 15: exactly one of url and domain. */
export const fanoutsCitedRoute: Route = {
  method: 'GET',
  pattern: /^\/fanouts\/cited$/,
  name: 'fanouts-cited',
  handle(context) {
    const { sim, world, query } = context;
    const filter = readAnswerFilter(context, { engineDefault: 'brand', topics: true });
    const url = query.string('url', { min: 1 });
    const domain = query.string('domain', { min: 1 });
    const paging = readPaging(query);
    if ((url === undefined) === (domain === undefined)) {
      const message = url === undefined ? 'send one of url and domain' : 'send only one of url and domain';
      query.fail('url', message);
      query.fail('domain', message);
    }
    query.finish();
    const target = url !== undefined ? { url } : { domain: normalizeDomain(domain!) };
    return { body: pagedBody(fanoutsCited(sim.store, world, filter, target), paging) };
  },
};

/** Endpoint 20; an unknown statement id is 404. competitors holds competitor ids. */
export const swotRoute: Route = {
  method: 'GET',
  pattern: /^\/swot\/(\d+)$/,
  name: 'swot',
  handle(context) {
    const { sim, world, query, params } = context;
    const filter = readAnswerFilter(context, { engineDefault: 'all', topics: false });
    const competitors = query.intArray('competitors', { min: 1 });
    const type = query.oneOf('type', SWOT_TYPE_VALUES);
    const paging = readPaging(query);
    query.finish();
    const statement = world.swotStatements.find((s) => s.id === Number(params[0]));
    if (!statement) throw simulatorNotFound(`no SWOT statement ${params[0]} for this brand`);
    const { rows, mentions } = swotAnswers(sim.store, world, filter, statement, competitors, type);
    const info = { type: statement.type, statement: { id: statement.id, text: statement.text, mentions } };
    return { body: pagedBody(rows, paging, info) };
  },
};
