import type { ParamName } from '../../../streams/registry.js';
import { CONTENT_TYPE_VALUES, OWNERSHIP_VALUES, SENTIMENT_VALUES } from '../../../api/schemas.js';
import { NO_DOMAIN, NO_ENGINE, NO_TOPIC, type ProbeContext } from '../probe-context.js';
import { ENDPOINTS } from '../endpoints.js';
import { echoedEngines, instantOf } from '../../../warehouse/provenance.js';
import { DAY_MS, DAY_PATTERN } from '../../../days.js';

export interface Sent {
  name: ParamName;
  value: unknown;
}

/**
 * Compares what was sent with the `info.query` echo of what the API applied: a name the API does not know comes
 * back missing or at its default. An answer without an echo settles nothing; the invalid-value tiebreak does.
 */
export function judgeEcho(
  ctx: ProbeContext,
  endpoint: string,
  sent: readonly Sent[],
  echo: Record<string, unknown> | null | undefined,
): Sent[] {
  if (!echo || Object.keys(echo).length === 0 || ctx.echoMirrors) return [...sent];
  for (const { name, value } of sent) {
    const wire = ctx.book.wire(name, endpoint);
    const applied = wire in echo ? echo[wire] : echo[name];
    const offsetMs = name === 'start_date' || name === 'end_date' ? instantOfDay(value, applied) : undefined;
    if (applied === undefined) {
      ctx.book.wrong(
        endpoint,
        name,
        `sent ${wire}=${show(value)}; info.query does not hold it (it holds ${Object.keys(echo).join(', ')})`,
        'request',
      );
    } else if (name === 'end_date' && offsetMs === DAY_MS) {
      // An end day D echoed as the first instant of D+1: a half-open range, the same days as D inclusive. The spec says
      // the bounds are inclusive but not how an echo spells them; taken for another day, it called a right end_date wrong.
      ctx.book.verified(
        endpoint,
        name,
        `info.query echoes ${show(applied)}, the instant after the day sent: the API reads the end as exclusive`,
        'request',
      );
    } else if (offsetMs !== undefined) {
      const echoes = `info.query echoes ${show(applied)} for ${wire}=${value}`;
      judgeDayInstant(ctx, endpoint, name as 'start_date' | 'end_date', echoes, offsetMs);
    } else if (!sameValue(value, applied)) {
      const arrays = Array.isArray(value) ? '; if the API reads lists another way, set api.arrayFormat' : '';
      ctx.book.wrong(
        endpoint,
        name,
        `sent ${wire}=${show(value)}; info.query says ${show(applied)} was applied${arrays}`,
        'request',
      );
    } else {
      ctx.book.verified(endpoint, name, `info.query echoes ${show(applied)} as sent`, 'request');
    }
  }
  return [];
}

function show(value: unknown): string {
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Milliseconds from the start of the UTC day `sent` to the instant `applied` echoes, when `applied` is a timestamp: it
 * says where the API's day begins or ends (`2026-11-25T00:00:00-05:00` is another zone's day).
 */
function instantOfDay(sent: unknown, applied: unknown): number | undefined {
  if (typeof sent !== 'string' || !DAY_PATTERN.test(sent) || typeof applied !== 'string') return undefined;
  const at = instantOf(applied);
  return at === undefined ? undefined : at - Date.parse(`${sent}T00:00:00Z`);
}

function judgeDayInstant(
  ctx: ProbeContext,
  endpoint: string,
  name: 'start_date' | 'end_date',
  echoes: string,
  offsetMs: number,
): void {
  if (name === 'start_date' && offsetMs === 0)
    return ctx.book.verified(endpoint, name, `${echoes}, the first instant of that UTC day`, 'request');
  // To the minute: an API may keep its times at minute precision (23:59).
  if (name === 'end_date' && offsetMs >= DAY_MS - 60_000 && offsetMs < DAY_MS)
    return ctx.book.verified(endpoint, name, `${echoes}, the last instant of that UTC day`, 'request');
  if (name === 'end_date' && offsetMs === 0) {
    return ctx.book.unchecked(
      endpoint,
      name,
      `${echoes}, the day's first instant: an API that ends the range there leaves the end day out (the spec says an end date covers its whole day); compare a one-day backfill with the day's answers`,
    );
  }
  const hours = Math.round(((offsetMs - (name === 'start_date' ? 0 : DAY_MS)) / 3_600_000) * 10) / 10;
  ctx.book.wrong(
    endpoint,
    name,
    `${echoes}, ${Math.abs(hours)} h ${hours > 0 ? 'after' : 'before'} the UTC day's ${name === 'start_date' ? 'start' : 'end'}: the API's days are not UTC days (the spec: "a day in UTC"), so rows would be filed under days they do not cover`,
    'request',
  );
}

function sameValue(sent: unknown, applied: unknown): boolean {
  const norm = (v: unknown): string => {
    if (Array.isArray(v))
      return v
        .map((x) => String(x).toLowerCase())
        .sort()
        .join(',');
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) return v.slice(0, 10);
    return String(v).toLowerCase();
  };
  return norm(sent) === norm(applied);
}

/**
 * Endpoint 16, first of all probes: the report of the wide window, with scenarios, teaches the probes the brand's
 * topics and scenarios, and offers the tiebreak its first controls. One request.
 */
export async function probeVisibilityReport(ctx: ProbeContext): Promise<Sent[]> {
  const endpoint = ENDPOINTS.visibility;
  const { client, brand, windows, facts } = ctx;
  const first: Sent[] = [
    { name: 'start_date', value: windows.wide.startDate },
    { name: 'end_date', value: windows.wide.endDate },
    { name: 'include_scenarios', value: true },
  ];
  const names = first.map((s) => s.name);
  const answer = await ctx.ask(endpoint, [...names, 'engines'], () => client.visibilityTopics(brand, optionsOf(first)));
  if (!answer.ok) {
    ctx.failed(endpoint, [...names, 'engines', 'topic_ids'], answer.why);
    return [];
  }
  const echo = answer.value.info.query as Record<string, unknown> | null | undefined;
  const unjudged = judgeEcho(ctx, endpoint, first, echo);
  // Sent without engines, the report applies the brand's and its echo is where bvsync learns them (streams/visibility.ts);
  // read under the engines parameter's wire name, as the sync reads the echo (provenance.ts).
  const enginesWire = ctx.book.wire('engines', endpoint);
  const echoed = echo ? (echoedEngines(echo, enginesWire) ?? []).filter((engine) => engine) : [];
  judgeConfiguredEngines(ctx, enginesWire, echoed);
  if (ctx.config.sync.engineBreakdown) {
    ctx.addAssumption(
      true,
      `engines: the per-engine streams break reports down by sync.engineBreakdown (${ctx.config.sync.engineBreakdown.join(', ')})`,
    );
  } else if (echoed.length === 0) {
    ctx.addAssumption(
      false,
      `engines: the visibility report's info.query names no engines when none is sent (it ${echo ? `holds ${Object.keys(echo).join(', ') || 'nothing'}` : 'is absent'}); ` +
        "bvsync learns the brand's engines from it, so visibility_by_engine and product_ranking_by_engine would plan nothing: " +
        "set sync.engineBreakdown to the API's engine ids",
    );
  } else {
    const which = ctx.config.api.engines.length
      ? 'the engines it applied of api.engines'
      : "the brand's engines when none is sent";
    ctx.addAssumption(true, `engines: the visibility report's info.query names ${which} (${echoed.join(', ')})`);
  }
  for (const row of answer.value.records) {
    if (row.conversations > 0) facts.topics.push({ id: row.topic_id, conversations: row.conversations });
    const scenario = row.scenarios?.find((s) => s.conversations > 0);
    if (scenario && !facts.scenario)
      facts.scenario = { id: scenario.scenario_id, topicId: row.topic_id, conversations: scenario.conversations };
  }
  // Controls of the tiebreak: the API must refuse a bad value under a name the echo showed it applies.
  ctx.offerControl(endpoint, 'include_scenarios', () =>
    client.visibilityTopics(brand, { ...windows.wide, includeScenarios: 'maybe' as never }),
  );
  ctx.offerControl(endpoint, 'start_date', () =>
    client.visibilityTopics(brand, { ...windows.wide, startDate: 'not-a-day' }),
  );
  return unjudged;
}

/**
 * `api.engines` goes with every read that names no engines; the spec omits engine ids, so an id the echo leaves out is
 * one the API does not know and drops. Judged only where the echo names engines at all.
 */
function judgeConfiguredEngines(ctx: ProbeContext, wire: string, echoed: readonly string[]): void {
  const configured = ctx.config.api.engines;
  if (configured.length === 0 || echoed.length === 0) return;
  const applied = new Set(echoed.map((engine) => engine.toLowerCase()));
  const unknown = configured.filter((engine) => !applied.has(engine.toLowerCase()));
  ctx.facts.unknownEngines = unknown;
  if (unknown.length === 0) {
    ctx.addAssumption(
      true,
      `api.engines: the visibility report's info.query applied every id sent (${configured.join(', ')})`,
    );
    return;
  }
  ctx.addAssumption(
    false,
    `api.engines: the API did not apply ${unknown.map((engine) => JSON.stringify(engine)).join(', ')}: the visibility report sent ${wire}=${configured.join(',')} ` +
      `and its info.query names ${echoed.join(', ')}. Not engine ids it knows, so every read that sends api.engines leaves them out; ` +
      "set api.engines to ids it names (with api.engines empty, the reports apply the brand's engines and their echo names them)",
  );
}

/** Endpoint 16's engines and topics, once the conversations showed the engines: one request, and tiebreaks. */
export async function probeVisibilityFilters(ctx: ProbeContext, unjudged: Sent[]): Promise<void> {
  const endpoint = ENDPOINTS.visibility;
  const { client, brand, windows, facts } = ctx;

  const engines = ctx.config.api.engines.length ? ctx.config.api.engines.slice(0, 1) : facts.engines.slice(0, 1);
  const topic = facts.topics[0]?.id;
  const second: Sent[] = [
    ...(engines.length ? [{ name: 'engines' as const, value: engines }] : []),
    ...(topic !== undefined ? [{ name: 'topic_ids' as const, value: [topic] }] : []),
  ];
  if (!engines.length)
    ctx.book.unchecked(
      endpoint,
      'engines',
      'no engine is known (no answer in the window, api.engines empty); set api.engines',
    );
  if (topic === undefined) ctx.book.unchecked(endpoint, 'topic_ids', NO_TOPIC);
  if (second.length) {
    const names = second.map((s) => s.name);
    const narrowed = await ctx.ask(endpoint, names, () =>
      client.visibilityTopics(brand, { ...windows.wide, ...optionsOf(second) }),
    );
    if (narrowed.ok) unjudged.push(...judgeEcho(ctx, endpoint, second, narrowed.value.info.query));
    else ctx.failed(endpoint, names, narrowed.why);
  }
  await tiebreakUnechoed(ctx, endpoint, unjudged, (name, bad) =>
    client.visibilityTopics(brand, { ...windows.wide, ...badFilter(name, bad) }),
  );
}

/** Endpoint 17: every filter bvsync can send, in one request. */
export async function probeCitations(ctx: ProbeContext): Promise<void> {
  const endpoint = ENDPOINTS.citations;
  const { client, brand, windows, facts } = ctx;
  const engines = facts.engines.slice(0, 2);
  const topics = facts.topics.slice(0, 2).map((t) => t.id);
  const domains = facts.domains.slice(0, 2).length ? facts.domains.slice(0, 2) : ['example.com'];
  const sent: Sent[] = [
    { name: 'start_date', value: windows.wide.startDate },
    { name: 'end_date', value: windows.wide.endDate },
    { name: 'period', value: 'week' },
    { name: 'ownership', value: ['first_party', 'competitor_owned'] },
    { name: 'content_types', value: ['blog_article'] },
    { name: 'sentiment', value: ['positive', 'neutral'] },
    { name: 'first_party', value: false },
    { name: 'domains', value: domains },
    ...(engines.length ? [{ name: 'engines' as const, value: engines }] : []),
    ...(topics.length ? [{ name: 'topic_ids' as const, value: topics }] : []),
  ];
  if (!engines.length) ctx.book.unchecked(endpoint, 'engines', NO_ENGINE);
  if (!topics.length) ctx.book.unchecked(endpoint, 'topic_ids', NO_TOPIC);
  const names = sent.map((s) => s.name);
  const answer = await ctx.askOrFail(endpoint, names, () => client.citations(brand, optionsOf(sent)));
  if (!answer) return;
  const unjudged = judgeEcho(ctx, endpoint, sent, answer.info.query);
  ctx.offerControl(endpoint, 'period', () =>
    client.citations(brand, { ...windows.wide, period: 'fortnight' as never }),
  );
  await tiebreakUnechoed(ctx, endpoint, unjudged, (name, bad) =>
    client.citations(brand, { ...windows.wide, ...badFilter(name, bad) }),
  );
}

/**
 * Endpoint 18: a domain of the brand's (tracked pages, competitors, sync.domains) that has citations in the
 * window; every filter at all its values so the domain keeps its citations, then first_party as the domain is.
 */
export async function probeDomainDetail(ctx: ProbeContext): Promise<void> {
  const endpoint = ENDPOINTS.domainDetail;
  const { client, brand, windows, facts } = ctx;
  const topics = facts.topics.map((t) => t.id);
  const sent: Sent[] = [
    { name: 'start_date', value: windows.wide.startDate },
    { name: 'end_date', value: windows.wide.endDate },
    { name: 'ownership', value: [...OWNERSHIP_VALUES] },
    { name: 'content_types', value: [...CONTENT_TYPE_VALUES] },
    { name: 'sentiment', value: [...SENTIMENT_VALUES] },
    ...(facts.engines.length ? [{ name: 'engines' as const, value: facts.engines }] : []),
    ...(topics.length ? [{ name: 'topic_ids' as const, value: topics }] : []),
  ];
  const names = sent.map((s) => s.name);
  if (!facts.engines.length) ctx.book.unchecked(endpoint, 'engines', NO_ENGINE);
  if (!topics.length) ctx.book.unchecked(endpoint, 'topic_ids', NO_TOPIC);
  if (!facts.domains.length) return ctx.failed(endpoint, [...names, 'first_party'], NO_DOMAIN);
  for (const domain of facts.domains.slice(0, 3)) {
    const answer = await ctx.ask(endpoint, names, () => client.domainDetail(brand, domain, optionsOf(sent)));
    if (!answer.ok) return ctx.failed(endpoint, [...names, 'first_party'], answer.why);
    if (answer.value.empty) continue;
    const unjudged = judgeEcho(ctx, endpoint, sent, answer.value.info.query);
    const firstParty = answer.value.records[0]?.is_first_party ?? false;
    const again = await ctx.askOrFail(endpoint, ['first_party'], () =>
      client.domainDetail(brand, domain, { ...windows.wide, firstParty }),
    );
    if (again?.empty)
      ctx.book.unchecked(endpoint, 'first_party', `${domain} has no citation with first_party=${firstParty} (a 404)`);
    else if (again)
      unjudged.push(...judgeEcho(ctx, endpoint, [{ name: 'first_party', value: firstParty }], again.info.query));
    await tiebreakUnechoed(ctx, endpoint, unjudged, (name, bad) =>
      client.domainDetail(brand, domain, { ...windows.wide, ...badFilter(name, bad) }),
    );
    return;
  }
  ctx.failed(
    endpoint,
    [...names, 'first_party'],
    `none of ${facts.domains.slice(0, 3).join(', ')} has a citation in ${windows.wide.startDate}..${windows.wide.endDate} (404)`,
  );
}

/** The client's option of each parameter whose name differs from it. */
const OPTION_KEYS: Partial<Record<ParamName, string>> = {
  start_date: 'startDate',
  end_date: 'endDate',
  content_types: 'contentTypes',
  first_party: 'firstParty',
  topic_ids: 'topicIds',
  include_scenarios: 'includeScenarios',
};

/** The client's options that send the parameters of `sent`, each with its value. */
function optionsOf(sent: readonly Sent[]): Record<string, unknown> {
  return Object.fromEntries(sent.map(({ name, value }) => [OPTION_KEYS[name] ?? name, value]));
}

/** A filter holding a value no API accepts, for the tiebreak of an answer without an echo. */
function badFilter(name: ParamName, bad: string): Record<string, unknown> {
  const list = ['engines', 'topic_ids', 'ownership', 'content_types', 'sentiment', 'domains'].includes(name);
  return optionsOf([{ name, value: list ? [bad] : bad }]);
}

async function tiebreakUnechoed(
  ctx: ProbeContext,
  endpoint: string,
  unjudged: Sent[],
  call: (name: ParamName, bad: string) => Promise<unknown>,
): Promise<void> {
  for (const { name } of unjudged) {
    const bad = name === 'start_date' || name === 'end_date' ? 'not-a-day' : 'not-a-value';
    await ctx.tiebreak(
      endpoint,
      name,
      bad,
      () => call(name, bad),
      ctx.echoMirrors
        ? 'info.query repeats the request, so it shows nothing applied'
        : 'the answer has no info.query echo',
    );
  }
}
