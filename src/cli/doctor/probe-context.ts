import type { EndpointReads } from '../endpoint-reads.js';
import { AuthError, ValidationError } from '../../api/errors.js';
import type { ParamName } from '../../streams/registry.js';
import { addDays, utcDayOf } from '../../days.js';
import { domainOf } from '../../streams/domains.js';
import { ENDPOINTS, SENT_PARAMS, endpointNameOf } from './endpoints.js';
import { listedNames } from './name-candidates.js';
import { isNoAnswer, isUnreadableAnswer } from './no-answer.js';
import type { RefusedNames } from './refused-names.js';
import { ValidationTally } from './validation-tally.js';
import type { VerdictBook } from './verdicts.js';
import type { Config } from '../../configuration.js';
import { errorMessage } from '../../format.js';

/** A date range as the probes send it (both ends inclusive days). */
export interface Window {
  startDate: string;
  endDate: string;
}

/**
 * The three ranges the date probes compare: moving only the start (or only the end) must change an answer when
 * the data has anything in the days moved over, and leaves it the same when the API ignores that name.
 */
export interface ProbeWindows {
  wide: Window;
  lateStart: Window;
  earlyEnd: Window;
}

export function probeWindows(lastDay: string): ProbeWindows {
  return {
    wide: { startDate: addDays(lastDay, -6), endDate: lastDay },
    lateStart: { startDate: addDays(lastDay, -1), endDate: lastDay },
    earlyEnd: { startDate: addDays(lastDay, -6), endDate: addDays(lastDay, -5) },
  };
}

/** What earlier probes learnt about the brand's data, for later probes to pick values and judge answers. */
export interface DataFacts {
  /** Engines the answers of the wide window came from. */
  engines: string[];
  /**
   * Ids of `api.engines` the visibility report's echo left out: the API does not know them and drops them, so a probe
   * sending one learns nothing from it (an unknown id accepted is this API's way, not a name it ignores).
   */
  unknownEngines: string[];
  /** Topics (and one scenario) with answers in the wide window, from the visibility report. */
  topics: Array<{ id: number; conversations: number }>;
  scenario?: { id: number; topicId: number; conversations: number };
  /** Domains and one tracked page to ask the domain and fanout endpoints about. */
  domains: string[];
  trackedUrl?: string;
  competitorIds: number[];
  /**
   * Whether the API refuses an invalid value under a name it knows, by kind of value (undefined: not learnt yet): an
   * API strict about days may take any flag.
   */
  validatesValues: Partial<Record<ValueKind, boolean>>;
}

/** Kinds of parameter value an API may validate or not, each learnt from a control of its own kind. */
export type ValueKind = 'day' | 'flag' | 'other';

const FLAGS: ReadonlySet<string> = new Set(['include_scenarios', 'mentioned', 'recommended', 'confirmed', 'ungrouped']);

function valueKindOf(param: ParamName): ValueKind {
  if (param.endsWith('_date')) return 'day';
  return FLAGS.has(param) ? 'flag' : 'other';
}

/** Longer than any text filter of the spec allows (titles 200, searches and phrases 255 characters). */
export const OVERLONG_TEXT = 'x'.repeat(256);
export const OVERLONG_SHOWN = '<256 characters>';

/** Why a filter cannot be checked: the answers named no engine, topic or domain to send. */
export const NO_ENGINE = 'no engine is known (no answer in the window); set api.engines';
export const NO_TOPIC = 'no topic has answers in the window; checkable once one has';
export const NO_DOMAIN =
  'no domain is known (no tracked page, competitor website or sync.domains); add one to sync.domains';

export type Asked<T> = { ok: true; value: T } | { ok: false; why: string; error?: unknown };

// A 400 detail that says the name itself is unknown (a strict API), as opposed to a bad value of a known name.
// "unknown query parameter" is about the name; "unknown value" is about a value of a name the API knows.
const UNKNOWN_NAME =
  /\b(unknown|unexpected|unrecogni[sz]ed|unsupported|extra|additional)\b(?![^.]*\bvalues?\b)[^.]*\b(param|parameter|field|property|key|name)s?\b|\bnot an? (allowed|known|permitted|supported|valid) (query )?(param|parameter|field|property)/i;

/** The most requests the probes send (retries aside); a probe past it is reported as not checked. */
export const MAX_PROBE_REQUESTS = 120;
const SPENT = `doctor's budget of ${MAX_PROBE_REQUESTS} requests is spent`;

// A 400 detail saying a parameter is missing: when it names another field than the one sent, the name sent is wrong.
const MISSING = /required|missing|one of|must (be )?sen[dt]/i;

/** Parameters an endpoint needs (spec: "a phrase", "one of url or domain"); a 400 asking for them by another name is evidence. */
const REQUIRED: Record<string, readonly ParamName[]> = {
  [ENDPOINTS.fanoutsByPhrase]: ['phrase'],
  [ENDPOINTS.fanoutsCited]: ['url', 'domain'],
};

export class ProbeContext {
  readonly facts: DataFacts = {
    engines: [],
    unknownEngines: [],
    topics: [],
    domains: [],
    competitorIds: [],
    validatesValues: {},
  };
  /**
   * What a run relies on beyond parameter names that the spec says "not shown" of (how lists travel, what the echo
   * names), each as a check line of doctor's: failed with what to set instead, or passed with what showed it.
   */
  readonly assumptions: Array<{ ok: boolean; line: string }> = [];
  /** `info.query` repeats the request rather than the query applied (probes/echo-mirror.ts): it judges no name. */
  echoMirrors = false;
  /** Requests the probes asked for so far (the client's retries aside). */
  requests = 0;
  /**
   * Endpoints that answered 403 to a key that reads the brand (a plan without them), with the answer: doctor fails when
   * a synced stream reads one (synced-readers.ts).
   */
  readonly refusedEndpoints = new Map<string, string>();
  /**
   * Endpoints that answered a probe (a page, or a 400 judging its query), and the first failure of each other one: an
   * endpoint that never answered fails doctor, as a run would fail every slice reading it.
   */
  readonly answeredEndpoints = new Set<string>();
  readonly failedEndpoints = new Map<string, string>();
  /**
   * Reads a sync makes (a later page, a day's last page) that the API answered with what bvsync cannot read, the first
   * per endpoint, as "page 2 of ...: what came back".
   */
  readonly unreadableReads = new Map<string, string>();
  readonly validation = new ValidationTally();
  /** Names a strict API listed in a 400 as those an endpoint knows, per endpoint: candidates of name-search.ts. */
  readonly listedNames = new Map<string, Set<string>>();
  private readonly controls: Array<{ endpoint: string; param: ParamName; call: () => Promise<unknown> }> = [];

  constructor(
    readonly client: EndpointReads,
    readonly brand: number,
    readonly book: VerdictBook,
    readonly windows: ProbeWindows,
    readonly config: Config,
    /** Where names a strict API refuses are kept so later requests leave them out; none: requests are sent as built. */
    readonly refused?: RefusedNames,
  ) {}

  /** Runs one request of a probe; a 400 settles the parameters it names (see readRefusal). */
  async ask<T>(endpoint: string, sent: readonly ParamName[], call: () => Promise<T>, retries = 2): Promise<Asked<T>> {
    if (!this.spend()) return { ok: false, why: SPENT };
    try {
      const value = await call();
      this.validation.see(endpoint, value);
      this.noteAnswer(endpoint);
      return { ok: true, value };
    } catch (error) {
      if (error instanceof AuthError) this.refusedEndpoints.set(endpoint, errorMessage(error));
      else this.noteAnswer(endpoint, error);
      if (!(error instanceof ValidationError) || !error.details?.length)
        return { ok: false, why: `the request failed: ${errorMessage(error)}`, error };
      this.readRefusal(endpoint, sent, error);
      // Send the request again without the names refused as unknown (every later request to the endpoint leaves
      // them out too), so the probe can still judge the other parameters in this run.
      const unknown = error.details.filter((d) => UNKNOWN_NAME.test(d.message)).map((d) => d.field);
      const path = error.endpoint.replace(/^[A-Z]+ /, '');
      if (retries > 0 && this.refused && unknown.length && this.refused.add(path, unknown))
        return this.ask(endpoint, sent, call, retries - 1);
      const fields = [...new Set(error.details.map((d) => `"${d.field}"`))].join(', ');
      return {
        ok: false,
        why: `the API refused the request over ${fields} (${error.details[0]!.message}); fix those, then run doctor again`,
      };
    }
  }

  /** Runs one request of a probe (ask); a failure marks `params` not checkable with why, and answers undefined. */
  async askOrFail<T>(
    endpoint: string,
    sent: readonly ParamName[],
    call: () => Promise<T>,
    params: readonly ParamName[] = sent,
  ): Promise<T | undefined> {
    const asked = await this.ask(endpoint, sent, call);
    if (asked.ok) return asked.value;
    this.failed(endpoint, params, asked.why);
    return undefined;
  }

  /**
   * Notes whether the API answered a request of the endpoint: an error is an answer unless it leaves the endpoint unread
   * (isNoAnswer); a 429 or a spent quota is an answer.
   */
  private noteAnswer(endpoint: string, error?: unknown): void {
    if (error === undefined || !isNoAnswer(error)) this.answeredEndpoints.add(endpoint);
    else if (!this.failedEndpoints.has(endpoint)) this.failedEndpoints.set(endpoint, errorMessage(error));
  }

  /**
   * Reads a 400: a detail naming a parameter as unknown makes that name wrong; any other detail about a parameter
   * means the API read the name (it judged its value), so the name is right.
   */
  private readRefusal(endpoint: string, sent: readonly ParamName[], error: ValidationError): void {
    const details = error.details ?? [];
    this.noteListed(endpoint, details);
    // Any parameter of the endpoint may be named: paging is sent by every paged request, whatever the probe.
    const candidates = [...sent, ...(SENT_PARAMS[endpoint] ?? [])];
    const named = new Set(details.map((d) => d.field));
    const asksFor = details.filter(
      (d) => MISSING.test(d.message) && !candidates.some((name) => this.book.wire(name, endpoint) === d.field),
    );
    // The API asks for a field under a name bvsync does not send, though it sent the parameter that fills it.
    for (const required of REQUIRED[endpoint] ?? []) {
      if (!asksFor.length || !sent.includes(required) || named.has(this.book.wire(required, endpoint))) continue;
      const likely = asksFor.find((d) => d.field.toLowerCase().includes(required)) ?? asksFor[0]!;
      const hint = likely.field.toLowerCase().includes(required)
        ? `; perhaps api.params.${required} = "${likely.field}" (or api.endpointParams["${endpointNameOf(endpoint)}"].${required}, for this endpoint alone)`
        : '';
      this.book.wrong(
        endpoint,
        required,
        `sent "${this.book.wire(required, endpoint)}", yet the API asks for "${likely.field}" (${likely.message})${hint}`,
        'request',
      );
    }
    for (const detail of details) {
      const param = candidates.find((name) => this.book.wire(name, endpoint) === detail.field);
      if (!param) continue;
      if (UNKNOWN_NAME.test(detail.message))
        this.book.wrong(endpoint, param, `the API refused "${detail.field}": ${detail.message}`, 'request');
      else
        this.book.verified(
          endpoint,
          param,
          `the API read "${detail.field}" and judged its value: ${detail.message}`,
          'request',
        );
    }
  }

  /** Keeps the names a 400 about an unknown name lists as known (name-candidates.ts reads them). */
  noteListed(endpoint: string, details: ReadonlyArray<{ message: string }>): void {
    for (const detail of details) {
      if (!UNKNOWN_NAME.test(detail.message)) continue;
      const names = listedNames(detail.message);
      if (names.length) this.listedNames.set(endpoint, new Set([...(this.listedNames.get(endpoint) ?? []), ...names]));
    }
  }

  private spend(): boolean {
    if (this.requests >= MAX_PROBE_REQUESTS) return false;
    this.requests++;
    return true;
  }

  /** Adds domains to ask about, without repeats; the brand's own (its tracked pages) go first, as they have citations. */
  rememberDomains(texts: Iterable<string | null | undefined>, first = false): void {
    const found = [...texts].map((text) => (text ? domainOf(text) : null)).filter((d): d is string => d !== null);
    const ordered = first ? [...found, ...this.facts.domains] : [...this.facts.domains, ...found];
    this.facts.domains = [...new Set(ordered)];
  }

  /**
   * Notes a read a sync makes (`read` names it: "page 2 at 1 record a page") that the API answered with what bvsync
   * cannot read (isUnreadableAnswer); true when it was one.
   */
  noteUnreadable(endpoint: string, read: string, asked: Asked<unknown>): boolean {
    if (asked.ok || !isUnreadableAnswer(asked.error)) return false;
    if (!this.unreadableReads.has(endpoint))
      this.unreadableReads.set(endpoint, `${read}: ${errorMessage(asked.error)}`);
    return true;
  }

  /** Adds one of the `assumptions`: failed with what to set instead, or passed with what showed it. */
  addAssumption(ok: boolean, line: string): void {
    this.assumptions.push({ ok, line });
  }

  /** Marks every parameter of a failed request that nothing settled yet as not checkable, with the failure. */
  failed(endpoint: string, params: readonly ParamName[], why: string): void {
    for (const param of params) this.book.unchecked(endpoint, param, why);
  }

  /**
   * Offers a request with an invalid value under a parameter, as the control of the tiebreak once the data
   * verified that parameter: it shows whether the API refuses bad values of the names it knows.
   */
  offerControl(endpoint: string, param: ParamName, call: () => Promise<unknown>): void {
    this.controls.push({ endpoint, param, call });
  }

  /**
   * Runs up to three verified controls of the kind, once: true when one is refused, false when a verified one is
   * accepted; undefined when no control of the kind could run.
   */
  private async validatesValues(kind: ValueKind): Promise<boolean | undefined> {
    const learnt = this.facts.validatesValues;
    for (let tries = 0; learnt[kind] === undefined && tries < 3; ) {
      const index = this.controls.findIndex(
        (c) => valueKindOf(c.param) === kind && this.book.verdictOf(c.endpoint, c.param) === 'verified',
      );
      if (index < 0 || !this.spend()) break;
      const [control] = this.controls.splice(index, 1);
      tries++;
      try {
        await control!.call();
        this.noteAnswer(control!.endpoint);
        learnt[kind] = false;
      } catch (error) {
        this.noteAnswer(control!.endpoint, error);
        if (
          error instanceof ValidationError &&
          error.details?.some((d) => d.field === this.book.wire(control!.param, control!.endpoint))
        )
          learnt[kind] = true;
      }
    }
    return learnt[kind];
  }

  /**
   * The last resort when the data cannot show a parameter's effect: send a value no API accepts. A 400 naming it shows
   * the name is read; a 200 shows it is ignored, provided the API refuses invalid values of names it knows (a control).
   */
  async tiebreak(
    endpoint: string,
    param: ParamName,
    invalid: string,
    call: () => Promise<unknown>,
    dataSays: string,
  ): Promise<void> {
    const wire = this.book.wire(param, endpoint);
    if (!this.spend()) return this.book.unchecked(endpoint, param, `${dataSays}; ${SPENT}`);
    try {
      await call();
      this.noteAnswer(endpoint);
    } catch (error) {
      this.noteAnswer(endpoint, error);
      if (error instanceof ValidationError && error.details?.some((d) => d.field === wire)) {
        const detail = error.details.find((d) => d.field === wire)!;
        this.noteListed(endpoint, error.details);
        if (UNKNOWN_NAME.test(detail.message))
          return this.book.wrong(endpoint, param, `the API refused "${wire}": ${detail.message}`, 'request');
        this.facts.validatesValues[valueKindOf(param)] = true;
        return this.book.verified(
          endpoint,
          param,
          `${dataSays}, but the API refused ${wire}=${invalid} (${detail.message}), so it reads the name`,
          'request',
        );
      }
      return this.book.unchecked(
        endpoint,
        param,
        `${dataSays}, and a request with ${wire}=${invalid} failed: ${errorMessage(error)}`,
      );
    }
    const kind = valueKindOf(param);
    if (await this.validatesValues(kind)) {
      const what = kind === 'day' ? 'days' : kind === 'flag' ? 'yes/no flags' : 'values';
      return this.book.wrong(
        endpoint,
        param,
        `${dataSays}, and the API accepted ${wire}=${invalid} though it refuses invalid ${what} under names it knows`,
        'request',
      );
    }
    this.book.unchecked(
      endpoint,
      param,
      `${dataSays}, and the API accepts even ${wire}=${invalid}; look at the data it returns for a filter you know`,
    );
  }
}

/** The UTC day of a timestamp or a day in a record not yet validated, or undefined when the value is neither. */
export function looseDayOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : utcDayOf(ms);
}

/** An answer as the probes compare them: its records and the total it states. */
type Answer = { records: readonly unknown[]; total: number | undefined };

/** Whether two answers are the same answer: the same total, and the same records in the same order. */
export function sameAnswer(a: Answer, b: Answer): boolean {
  const key = ({ total, records }: Answer) => JSON.stringify({ total, records });
  return key(a) === key(b);
}

/** How an answer changed, for the table: the count when it moved, else that the content did. */
export function change(before: Answer, after: Answer): string {
  const a = before.total ?? before.records.length;
  const b = after.total ?? after.records.length;
  return a === b ? `${a} records both times, other values or order` : `${a} -> ${b} records`;
}
