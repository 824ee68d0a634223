import { DAY_MS, simDayOfMs } from '../sim-days.js';
import type { Engine } from './engines.js';
import { isVisible, visibleCount, type LateSettings } from '../faults/late-answers.js';
import { hashKeys, hashString, randomFor, unitFor } from './random.js';
import { SIMULATOR_DEFAULTS, type SimulatorOptions } from '../options.js';
import type { Sentiment } from '../spec-enums.js';
import type { BrandWorld, CitedPage, Product } from './world-types.js';

/** A brand named in an answer: -1 is the brand itself, else an index into `basis.competitors`. */
interface Mention {
  who: number;
  position: number;
}

export interface Citation {
  page: CitedPage;
  sentiment: Sentiment;
}

interface ProductMention {
  product: Product;
  recommended: boolean;
}

/** One answer of one engine, as generated. The conversation record (endpoint 13) is a view of it. */
export interface Answer {
  id: number;
  index: number;
  day: number;
  time: number;
  engine: Engine;
  topicId: number;
  scenarioId: number;
  hasShopping: boolean;
  mentioned: boolean;
  recommended: boolean;
  position?: number;
  recommendationPosition?: number;
  factCheckPassed?: boolean;
  brands: Mention[];
  citations: Citation[];
  products: ProductMention[];
  searches: number[];
  statementId?: number;
}

/** Filters every reader of answers shares. Undefined means no filter. */
export interface AnswerFilter {
  /** Inclusive bounds in ms. */
  startMs: number;
  endMs: number;
  engines?: ReadonlySet<string>;
  topicIds?: ReadonlySet<number>;
  scenarioId?: number;
  mentioned?: boolean;
  recommended?: boolean;
}

interface AnswerStoreOptions extends Pick<SimulatorOptions, 'maxCachedAnswers'> {
  seed: number;
  /** Answers per brand per day before jitter. */
  scale: number;
  firstDay: number;
  world: (brandId: number) => BrandWorld;
  today: () => number;
  late: () => LateSettings;
}

interface CachedDay {
  answers: Answer[];
  /** Visible, filtered lists by filter key, computed on demand; cleared when the clock or late knob moves. */
  lists: Map<string, Answer[]>;
}

const COUNT_KEY = hashString('count');
const ANSWERS_KEY = hashString('answers');
const LATE_KEY = hashString('late');

function clamp01(value: number): number {
  return value < 0 ? 0 : Math.min(value, 0.97);
}

/**
 * Every brand's and day's answers, generated on demand from (seed, brand, date) into an LRU cache bounded by answers.
 * Counting a day unfiltered needs no generation, so paging a long range costs O(days) plus the days a page touches.
 */
export class AnswerStore {
  private readonly cache = new Map<number, CachedDay>();
  private cachedAnswers = 0;
  private readonly maxCachedAnswers: number;
  private listsVersion = '';

  constructor(private readonly options: AnswerStoreOptions) {
    this.maxCachedAnswers = options.maxCachedAnswers ?? SIMULATOR_DEFAULTS.maxCachedAnswers;
  }

  /** Answers generated for the day (visible or not yet): scale ± 15 %, seeded. */
  dayCount(brandId: number, day: number): number {
    if (day < this.options.firstDay) return 0;
    const jitter = unitFor(this.options.seed, brandId, day, COUNT_KEY);
    return Math.max(1, Math.round(this.options.scale * (0.85 + 0.3 * jitter)));
  }

  /** Answers of the day visible now (the clock and the late-answers knob). */
  visibleDayCount(brandId: number, day: number): number {
    const today = this.options.today();
    if (day > today) return 0;
    return visibleCount(this.dayCount(brandId, day), today - day, this.options.late());
  }

  /** Every answer generated for the day, visible or not, oldest first. */
  generatedDay(brandId: number, day: number): Answer[] {
    return this.entry(brandId, day).answers;
  }

  /** Visible answers of the day that pass the filter, oldest first. */
  dayList(brandId: number, day: number, filter: AnswerFilter): Answer[] {
    this.refreshVersion();
    const entry = this.entry(brandId, day);
    const key = filterKey(filter, day);
    let list = entry.lists.get(key);
    if (!list) {
      const today = this.options.today();
      const late = this.options.late();
      const count = entry.answers.length;
      const offset = count > 0 ? hashKeys(this.options.seed, brandId, day, LATE_KEY) % count : 0;
      list = entry.answers.filter(
        (answer) => matches(answer, filter) && isVisible(answer.index, count, offset, today - day, late),
      );
      if (entry.lists.size >= 16) entry.lists.clear();
      entry.lists.set(key, list);
    }
    return list;
  }

  /** Visible answers of the day passing the filter; O(1) when the filter leaves the whole day. */
  countDay(brandId: number, day: number, filter: AnswerFilter): number {
    if (isWholeDay(filter, day)) return this.visibleDayCount(brandId, day);
    return this.dayList(brandId, day, filter).length;
  }

  /** Days of the filter's range that can hold answers, oldest first. */
  daysOf(filter: AnswerFilter): { first: number; last: number } {
    const first = Math.max(this.options.firstDay, simDayOfMs(filter.startMs));
    const last = Math.min(this.options.today(), simDayOfMs(filter.endMs));
    return { first, last };
  }

  forEach(brandId: number, filter: AnswerFilter, visit: (answer: Answer) => void): void {
    const { first, last } = this.daysOf(filter);
    for (let day = first; day <= last; day++) {
      for (const answer of this.dayList(brandId, day, filter)) visit(answer);
    }
  }

  /** Bytes are hard to measure in JS; the cache is bounded by answers held (about 1 KB each, see docs/simulator.md). */
  cacheStats(): { days: number; answers: number; maxAnswers: number } {
    return { days: this.cache.size, answers: this.cachedAnswers, maxAnswers: this.maxCachedAnswers };
  }

  private refreshVersion(): void {
    const late = this.options.late();
    const version = `${this.options.today()}:${late.share}:${late.days}`;
    if (version !== this.listsVersion) {
      this.listsVersion = version;
      for (const entry of this.cache.values()) entry.lists.clear();
    }
  }

  private entry(brandId: number, day: number): CachedDay {
    const key = brandId * 1_000_000 + day;
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const answers = this.generate(brandId, day);
    const entry: CachedDay = { answers, lists: new Map() };
    this.cache.set(key, entry);
    this.cachedAnswers += answers.length;
    for (const [oldKey, old] of this.cache) {
      if (this.cachedAnswers <= this.maxCachedAnswers || oldKey === key) break;
      this.cache.delete(oldKey);
      this.cachedAnswers -= old.answers.length;
    }
    return entry;
  }

  private generate(brandId: number, day: number): Answer[] {
    const count = this.dayCount(brandId, day);
    const world = this.options.world(brandId);
    const basis = world.basis;
    const rng = randomFor(this.options.seed, brandId, day, ANSWERS_KEY);
    const combos = basis.topics.flatMap((entry, topic) =>
      entry.scenarios.flatMap((_, scenario) => entry.engines.map((engine) => ({ topic, scenario, engine }))),
    );
    const answers: Answer[] = new Array(count);
    const dayStart = day * DAY_MS;
    const slot = DAY_MS / count;
    const idBase = (brandId * 100_000 + day) * 1_000_000;
    const competitorCount = basis.competitors.length;
    for (let index = 0; index < count; index++) {
      const combo = combos[rng.int(combos.length)]!;
      const topicEntry = basis.topics[combo.topic]!;
      const scenario = topicEntry.scenarios[combo.scenario]!;
      const scenarioLift = 0.75 + 0.5 * unitFor(scenario.id, 17);
      const mentioned = rng.chance(
        clamp01(topicEntry.visibility * (basis.engineFactor[combo.engine] ?? 1) * scenarioLift),
      );

      const named: Array<{ who: number; score: number }> = [];
      if (mentioned) named.push({ who: -1, score: rng.next() * (0.4 + topicEntry.visibility) });
      for (let c = 0; c < competitorCount; c++) {
        const strength = basis.competitors[c]!.strength;
        if (rng.chance(strength * 0.7)) named.push({ who: c, score: rng.next() * (0.4 + strength) });
      }
      named.sort((a, b) => b.score - a.score);
      const brands = named.map((entry, i) => ({ who: entry.who, position: i + 1 }));
      const own = brands.find((m) => m.who === -1);
      const recommended = mentioned && rng.chance(0.55);

      const citations: Citation[] = [];
      const citationCount = rng.int(6);
      for (let k = 0; k < citationCount; k++) {
        const r = rng.next();
        let page: CitedPage;
        if (r < 0.2) page = rng.weighted(basis.ownPages, basis.ownPageWeights);
        else if (r < 0.37) {
          const namedCompetitors = brands.filter((m) => m.who >= 0);
          const who = namedCompetitors.length > 0 ? rng.pick(namedCompetitors).who : rng.int(competitorCount);
          page = rng.pick(basis.competitorPages[who]!);
        } else page = rng.pick(basis.thirdPartyPages);
        const sentiment = rng.weighted(['positive', 'neutral', 'negative'] as const, [45, 40, 15]);
        citations.push({ page, sentiment });
      }

      const hasShopping = rng.chance(0.3);
      const products: ProductMention[] = [];
      if (hasShopping) {
        const wanted = rng.between(3, 5);
        const seen = new Set<number>();
        for (let tries = 0; products.length < wanted && tries < 12; tries++) {
          const product = rng.weighted(basis.products, basis.productWeights);
          if (seen.has(product.id)) continue;
          seen.add(product.id);
          products.push({ product, recommended: rng.chance(0.35) });
        }
      }

      const searchCount = rng.between(1, 3);
      const searches: number[] = [];
      for (let k = 0; k < searchCount; k++) {
        const id = rng.pick(topicEntry.searches);
        if (!searches.includes(id)) searches.push(id);
      }

      const answer: Answer = {
        id: idBase + index,
        index,
        day,
        time: dayStart + Math.floor((index + rng.next()) * slot),
        engine: combo.engine,
        topicId: topicEntry.topic.id,
        scenarioId: scenario.id,
        hasShopping,
        mentioned,
        recommended,
        brands,
        citations,
        products,
        searches,
      };
      if (own) answer.position = own.position;
      if (recommended) answer.recommendationPosition = 1 + rng.int(Math.min(3, brands.length));
      if (rng.chance(0.8)) answer.factCheckPassed = rng.chance(0.85);
      if (rng.chance(0.12)) answer.statementId = rng.pick(basis.statements).id;
      answers[index] = answer;
    }
    return answers;
  }
}

function isWholeDay(filter: AnswerFilter, day: number): boolean {
  return (
    filter.startMs <= day * DAY_MS &&
    filter.endMs >= (day + 1) * DAY_MS - 1 &&
    filter.engines === undefined &&
    filter.topicIds === undefined &&
    filter.scenarioId === undefined &&
    filter.mentioned === undefined &&
    filter.recommended === undefined
  );
}

function matches(answer: Answer, filter: AnswerFilter): boolean {
  if (answer.time < filter.startMs || answer.time > filter.endMs) return false;
  if (filter.engines && !filter.engines.has(answer.engine)) return false;
  if (filter.topicIds && !filter.topicIds.has(answer.topicId)) return false;
  if (filter.scenarioId !== undefined && answer.scenarioId !== filter.scenarioId) return false;
  if (filter.mentioned !== undefined && answer.mentioned !== filter.mentioned) return false;
  if (filter.recommended !== undefined && answer.recommended !== filter.recommended) return false;
  return true;
}

/** The filter as it applies to one day (bounds clipped to the day), so lists cache across ranges. */
function filterKey(filter: AnswerFilter, day: number): string {
  const start = Math.max(filter.startMs, day * DAY_MS);
  const end = Math.min(filter.endMs, (day + 1) * DAY_MS - 1);
  return [
    start - day * DAY_MS,
    end - day * DAY_MS,
    filter.engines ? [...filter.engines].sort().join(',') : '*',
    filter.topicIds ? [...filter.topicIds].sort().join(',') : '*',
    filter.scenarioId ?? '*',
    filter.mentioned ?? '*',
    filter.recommended ?? '*',
  ].join('|');
}
