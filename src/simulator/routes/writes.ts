import { BodyReader } from './body.js';
import { isoTime } from '../sim-days.js';
import { ENGINES } from '../world/engines.js';
import { SimulatorApiError, simulatorNotFound } from '../sim-errors.js';
import { countCitedPages, trackedUrlRecord } from '../reports/tracked-urls.js';
import { LIMITS } from '../spec-enums.js';
import { normalizeUrl } from '../normalize-url.js';
import type { DryRunAnswer } from '../knobs.js';
import type { Competitor, Topic, TrackedUrl } from '../world/world-types.js';
import { readAnswerFilter } from './common.js';
import type { Route, RouteContext } from './route.js';

/**
 * The write endpoints (1, 2, 4, 5, 6, 8, 9) change the catalog in memory; answers keep coming from the start catalog.
 * A dry run checks and answers with the items it would write (ids included), writes nothing, and says info.written 0.
 */

interface Rejection {
  index: number;
  code: 'not_found' | 'conflict' | 'plan_limit_reached';
  message: string;
}

function bulk(data: unknown[], rejected: Rejection[], dryRun: boolean, shape: DryRunAnswer) {
  const info = { dry_run: dryRun, written: dryRun ? 0 : data.length, rejected: rejected.length };
  if (!dryRun || shape === 'ids') return { data, info, rejected };
  if (shape === 'info-only') return { info, rejected };
  return { data: data.map((item) => dryRunItem(item as Record<string, unknown>, shape)), info, rejected };
}

/** An item of a dry run's answer without the id it would get (knob `dryRunAnswer`): nothing was created, so nothing has one. */
function dryRunItem(
  item: Record<string, unknown>,
  shape: Exclude<DryRunAnswer, 'ids' | 'info-only'>,
): Record<string, unknown> {
  const { id: _id, ...rest } = item;
  if (shape === 'no-ids') return rest;
  return { id: shape === 'null-ids' ? null : 0, ...rest };
}

/**
 * The start of a bulk write: the body's list of items (1 to `max`), whether it is a dry run the knobs let be one, the
 * ids it gives (on a dry run, those it would give), and its answer with the items it rejected.
 */
function readBulk(context: RouteContext, field: string, max: number) {
  context.query.finish();
  const { world, sim } = context;
  const reader = new BodyReader(context.body);
  const body = reader.object();
  const list = reader.array(body[field], field, { min: 1, max, required: true }) ?? [];
  const dryRun = (reader.boolean(body.dry_run, 'dry_run') ?? false) && !sim.knobs.dryRunIgnored;
  let provisional = 0;
  const rejected: Rejection[] = [];
  return {
    reader,
    body,
    list,
    dryRun,
    takeId: () => (dryRun ? world.peekId(++provisional) : world.nextId()),
    reject: (index: number, code: Rejection['code'], message: string) => rejected.push({ index, code, message }),
    answer: (data: unknown[]) => bulk(data, rejected, dryRun, sim.knobs.dryRunAnswer),
  };
}

/** The start of a PATCH (or a restore): the item its path names (404 when the brand has none) and the body's reader. */
function readPatch<T extends { id: number }>(context: RouteContext, items: T[], noun: string) {
  context.query.finish();
  const item = items.find((each) => each.id === Number(context.params[0]));
  if (!item) throw simulatorNotFound(`no ${noun} ${context.params[0]}`);
  const reader = new BodyReader(context.body);
  return { item, reader, body: reader.object() };
}

/** The "title of the page" for a page tracked without one: its last path segment, in words, and its host. */
function pageTitle(url: string): string {
  const parsed = new URL(url);
  const last = parsed.pathname.split('/').filter(Boolean).pop();
  return last ? `${decodeURIComponent(last).replace(/[-_]+/g, ' ')} | ${parsed.host}` : parsed.host;
}

function trackedUrlCounts(context: RouteContext) {
  // The record of a written page shows its counts over the default range, as a read without filters would.
  return countCitedPages(
    context.sim.store,
    context.world,
    readAnswerFilter(context, { engineDefault: 'all', topics: false }),
  );
}

function topicRecord(topic: Topic) {
  const { deleted: _deleted, ...record } = topic;
  return { ...record, scenarios: topic.scenarios.map((s) => ({ ...s })), tags: topic.tags.map((t) => ({ ...t })) };
}

const trackUrls: Route = {
  method: 'POST',
  pattern: /^\/tracked-urls$/,
  name: 'track-urls',
  handle(context) {
    const { world, sim } = context;
    const { reader, body, list: urls, ...write } = readBulk(context, 'urls', LIMITS.trackUrlsMax);
    const groupId = reader.integer(body.group_id, 'group_id');
    const items = urls.map((item, index) => {
      const entry = reader.record(item, `urls[${index}]`) ?? {};
      const raw = reader.string(entry.url, `urls[${index}].url`, true);
      const title = reader.string(entry.title, `urls[${index}].title`);
      const url = raw === undefined ? undefined : normalizeUrl(raw);
      if (raw !== undefined && url === undefined) reader.fail(`urls[${index}].url`, 'must be an http(s) address');
      return { url: url ?? '', title };
    });
    reader.finish();
    const group = groupId === undefined ? undefined : world.groups.find((g) => g.id === groupId);
    const taken = new Set(world.trackedUrls.map((page) => page.url));
    const created: TrackedUrl[] = [];
    items.forEach((item, index) => {
      if (groupId !== undefined && !group) return write.reject(index, 'not_found', `no group ${groupId}`);
      if (taken.has(item.url)) return write.reject(index, 'conflict', `${item.url} is already tracked`);
      taken.add(item.url);
      created.push({
        id: write.takeId(),
        url: item.url,
        title: item.title ?? pageTitle(item.url),
        created_at: isoTime(sim.clock.nowMs()),
        ...(group ? { group_id: group.id } : {}),
      });
    });
    if (!write.dryRun) world.trackedUrls.push(...created);
    const counts = trackedUrlCounts(context);
    return { body: write.answer(created.map((page) => trackedUrlRecord(world, page, counts))) };
  },
};

const updateTrackedUrl: Route = {
  method: 'PATCH',
  pattern: /^\/tracked-urls\/(\d+)$/,
  name: 'update-tracked-url',
  handle(context) {
    const { world } = context;
    const { item: page, reader, body } = readPatch(context, world.trackedUrls, 'tracked URL');
    const groupId = body.group_id === null ? null : reader.integer(body.group_id, 'group_id');
    const title = reader.string(body.title, 'title');
    const raw = reader.string(body.url, 'url');
    const url = raw === undefined ? undefined : normalizeUrl(raw);
    if (raw !== undefined && url === undefined) reader.fail('url', 'must be an http(s) address');
    if (typeof groupId === 'number' && !world.groups.some((g) => g.id === groupId))
      reader.fail('group_id', `no group ${groupId}`);
    reader.finish();
    if (url !== undefined && url !== page.url && world.trackedUrls.some((p) => p.url === url)) {
      throw new SimulatorApiError(409, 'conflict', `${url} is already tracked`);
    }
    if (groupId === null) delete page.group_id;
    else if (groupId !== undefined) page.group_id = groupId;
    if (title !== undefined) page.title = title;
    if (url !== undefined) page.url = url;
    return { body: trackedUrlRecord(world, page, trackedUrlCounts(context)) };
  },
};

const createTopics: Route = {
  method: 'POST',
  pattern: /^\/topics$/,
  name: 'create-topics',
  handle(context) {
    const { world, sim } = context;
    const { reader, list: topics, ...write } = readBulk(context, 'topics', LIMITS.topicsPerRequestMax);
    const items = topics.map((item, index) => {
      const at = `topics[${index}]`;
      const entry = reader.record(item, at) ?? {};
      const engines = reader.array(entry.answer_engines, `${at}.answer_engines`, {});
      if (engines?.some((e) => typeof e !== 'string' || !(ENGINES as readonly string[]).includes(e))) {
        reader.fail(`${at}.answer_engines`, `must hold engine identifiers: ${ENGINES.join(', ')}`);
      }
      const scenarios = reader.array(entry.scenarios, `${at}.scenarios`, { max: LIMITS.scenariosPerTopicMax });
      scenarios?.forEach((text, k) => reader.string(text, `${at}.scenarios[${k}]`, true));
      return {
        name: reader.string(entry.name, `${at}.name`, true) ?? '',
        type: reader.string(entry.type, `${at}.type`) ?? 'prompter',
        language: reader.string(entry.language, `${at}.language`) ?? 'english',
        status: reader.string(entry.status, `${at}.status`) ?? 'active',
        engines: (engines as string[] | undefined) ?? [],
        personaId: reader.integer(entry.persona_id, `${at}.persona_id`),
        scenarios: (scenarios as string[] | undefined) ?? [],
      };
    });
    reader.finish();
    const keyOf = (t: { name: string; type: string; language: string }) =>
      `${t.name}\u0000${t.type}\u0000${t.language}`;
    const active = world.topics.filter((t) => !t.deleted);
    const taken = new Set(active.map(keyOf));
    let activeCount = active.length;
    const created: Topic[] = [];
    items.forEach((item, index) => {
      if (item.personaId !== undefined && !world.personas.some((p) => p.id === item.personaId))
        return write.reject(index, 'not_found', `no persona ${item.personaId}`);
      if (taken.has(keyOf(item)))
        return write.reject(index, 'conflict', `a topic "${item.name}" (${item.type}, ${item.language}) exists`);
      if (activeCount >= sim.planTopicLimit)
        return write.reject(index, 'plan_limit_reached', `the plan holds ${sim.planTopicLimit} topics`);
      taken.add(keyOf(item));
      activeCount++;
      const id = write.takeId();
      const createdAt = isoTime(sim.clock.nowMs());
      created.push({
        id,
        name: item.name,
        language: item.language,
        type: item.type,
        status: item.status,
        created_at: createdAt,
        answer_engines: item.engines,
        ...(item.personaId !== undefined ? { persona_id: item.personaId } : {}),
        scenarios: item.scenarios.map((text) => ({
          id: write.takeId(),
          topic_id: id,
          text,
          status: 'active',
          created_at: createdAt,
        })),
        tags: [],
        deleted: false,
      });
    });
    if (!write.dryRun) world.topics.push(...created);
    return { body: write.answer(created.map(topicRecord)) };
  },
};

const restoreTopic: Route = {
  method: 'POST',
  pattern: /^\/topics\/(\d+)\/restore$/,
  name: 'restore-topic',
  handle(context) {
    const { item: topic } = readPatch(context, context.world.topics, 'topic');
    if (!topic.deleted) throw new SimulatorApiError(409, 'conflict', `topic ${topic.id} is not deleted`);
    topic.deleted = false;
    return { body: topicRecord(topic) };
  },
};

const createCompetitors: Route = {
  method: 'POST',
  pattern: /^\/competitors$/,
  name: 'create-competitors',
  handle(context) {
    const { world } = context;
    const { reader, list, ...write } = readBulk(context, 'competitors', LIMITS.competitorsPerRequestMax);
    const items = list.map((item, index) => {
      const entry = reader.record(item, `competitors[${index}]`) ?? {};
      return {
        name: reader.string(entry.name, `competitors[${index}].name`, true) ?? '',
        website: reader.string(entry.website, `competitors[${index}].website`) ?? '',
      };
    });
    reader.finish();
    const tracked = new Set(world.competitors.filter((c) => c.is_actual).map((c) => c.name.toLowerCase()));
    const written: Competitor[] = [];
    items.forEach((item, index) => {
      const key = item.name.toLowerCase();
      if (tracked.has(key)) return write.reject(index, 'conflict', `${item.name} is already tracked`);
      tracked.add(key);
      // A suggestion of the platform becomes tracked with its history (the same record and id).
      const suggestion = world.competitors.find((c) => !c.is_actual && c.name.toLowerCase() === key);
      if (suggestion) {
        if (!write.dryRun) suggestion.is_actual = true;
        written.push({ ...suggestion, is_actual: true });
        return;
      }
      const competitor = { id: write.takeId(), name: item.name, website: item.website, is_actual: true };
      if (!write.dryRun) world.competitors.push(competitor);
      written.push({ ...competitor });
    });
    return { body: write.answer(written) };
  },
};

const updatePersona: Route = {
  method: 'PATCH',
  pattern: /^\/personas\/(\d+)$/,
  name: 'update-persona',
  handle(context) {
    const { item: persona, reader, body } = readPatch(context, context.world.personas, 'persona');
    const changes = {
      city: reader.string(body.city, 'city'),
      country: reader.string(body.country, 'country'),
      description: reader.string(body.description, 'description'),
      name: reader.string(body.name, 'name'),
    };
    const properties = reader.record(body.properties, 'properties');
    reader.finish();
    for (const [key, value] of Object.entries(changes))
      if (value !== undefined) (persona as unknown as Record<string, unknown>)[key] = value;
    // Each section sent replaces that section; the others stay.
    if (properties) persona.properties = { ...(persona.properties ?? {}), ...properties };
    return { body: structuredClone(persona) };
  },
};

const updateTag: Route = {
  method: 'PATCH',
  pattern: /^\/tags\/(\d+)$/,
  name: 'update-tag',
  handle(context) {
    const { world } = context;
    const { item: tag, reader, body } = readPatch(context, world.tags, 'tag');
    const name = reader.string(body.name, 'name');
    const color = reader.string(body.color, 'color');
    if (color !== undefined && !/^#[0-9a-fA-F]{6}$/.test(color)) reader.fail('color', 'must be a hex colour #rrggbb');
    reader.finish();
    if (name !== undefined) tag.name = name;
    if (color !== undefined) tag.color = color;
    // Topics hold their tags by value in the records they return; keep them in step.
    for (const topic of world.topics) for (const t of topic.tags) if (t.id === tag.id) Object.assign(t, tag);
    return { body: { ...tag } };
  },
};

export const writeRoutes: Route[] = [
  trackUrls,
  updateTrackedUrl,
  createTopics,
  restoreTopic,
  createCompetitors,
  updatePersona,
  updateTag,
];
