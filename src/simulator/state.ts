import type { ArrayFormat, ParamMapping } from '../api/param-names.js';
import { AnswerStore } from './world/answers.js';
import { SimulatorClock } from './clock.js';
import { DAY_MS, parseSimDay } from './sim-days.js';
import { IdempotencyStore } from './idempotency.js';
import { DEFAULT_KNOBS, parseKnobs, type Knobs } from './knobs.js';
import {
  DEFAULT_API_KEY,
  SIMULATOR_DEFAULTS as DEFAULTS,
  type RangeEndEcho,
  type SimulatorOptions,
} from './options.js';
import { RateLimiter } from './faults/rate-limit.js';
import { RequestLog } from './request-log.js';
import { generateWorld } from './world/world.js';
import type { BrandWorld } from './world/world-types.js';

/** Everything one running simulator holds, shared by its routes. */
export class SimulatorState {
  readonly seed: number;
  readonly brandCount: number;
  readonly apiKey: string;
  private readonly params: ParamMapping;
  private readonly endpointParams: ReadonlyArray<{ pattern: RegExp; mapping: ParamMapping }>;
  readonly arrayFormat: ArrayFormat;
  readonly rangeEndEcho: RangeEndEcho;
  readonly idempotencyHeader: string;
  readonly planTopicLimit: number;
  readonly firstDay: number;
  readonly clock: SimulatorClock;
  readonly store: AnswerStore;
  readonly idempotency = new IdempotencyStore();
  readonly rateLimiter = new RateLimiter();
  readonly requestLog = new RequestLog();
  knobs: Knobs;
  /** API requests so far: the sequence faults are drawn by. */
  requestSequence = 0;
  /** API requests received and not yet answered, their latency included (`/__admin/info`). */
  inFlight = 0;
  /** Writes that were not dry runs since `realWritesAnswered` was last set. */
  realWrites = 0;
  /** Requests each API key was served on one day of the clock, for `dailyQuota`. */
  private readonly quotaUsed = new Map<string, { day: number; count: number }>();
  private readonly worlds = new Map<number, BrandWorld>();

  constructor(readonly options: SimulatorOptions) {
    this.seed = options.seed ?? DEFAULTS.seed;
    this.brandCount = options.brands ?? DEFAULTS.brands;
    const days = options.days ?? DEFAULTS.days;
    const scale = options.scale ?? DEFAULTS.scale;
    this.apiKey = options.apiKey ?? DEFAULT_API_KEY;
    this.params = options.params ?? {};
    this.endpointParams = Object.entries(options.endpointParams ?? {}).map(([path, mapping]) => ({
      pattern: endpointPattern(path),
      mapping: { ...this.params, ...mapping },
    }));
    this.arrayFormat = options.arrayFormat ?? DEFAULTS.arrayFormat;
    this.rangeEndEcho = options.rangeEndEcho ?? DEFAULTS.rangeEndEcho;
    this.idempotencyHeader = (options.idempotencyHeader ?? DEFAULTS.idempotencyHeader).toLowerCase();
    this.planTopicLimit = options.planTopicLimit ?? DEFAULTS.planTopicLimit;
    if (!Number.isInteger(this.brandCount) || this.brandCount < 1) throw new Error('brands must be a positive integer');
    if (!Number.isInteger(days) || days < 1) throw new Error('days must be a positive integer');
    if (!(scale >= 1)) throw new Error('scale must be at least 1');
    const today = options.today === undefined ? undefined : parseSimDay(options.today);
    if (options.today !== undefined && today === undefined)
      throw new Error(`today must be YYYY-MM-DD, got ${JSON.stringify(options.today)}`);
    this.clock = new SimulatorClock(today, options.clock);
    this.firstDay = this.clock.today() - days + 1;
    const knobInput = Object.fromEntries(Object.entries(options).filter(([key]) => Object.hasOwn(DEFAULT_KNOBS, key)));
    this.knobs = { ...DEFAULT_KNOBS, ...parseKnobs(knobInput) };
    this.store = new AnswerStore({
      seed: this.seed,
      scale,
      firstDay: this.firstDay,
      world: (brandId) => this.world(brandId),
      today: () => this.clock.today(),
      late: () => ({ share: this.knobs.lateShare, days: this.knobs.lateDays }),
      ...(options.maxCachedAnswers !== undefined ? { maxCachedAnswers: options.maxCachedAnswers } : {}),
    });
  }

  /**
   * Counts a request against the key's `dailyQuota`: undefined when it may pass, else the seconds until the quota
   * comes back (the end of the clock's day).
   */
  takeDailyQuota(key: string): number | undefined {
    if (this.knobs.dailyQuota <= 0) return undefined;
    const now = this.clock.nowMs();
    const day = this.clock.today();
    const used = this.quotaUsed.get(key);
    const current = used && used.day === day ? used : { day, count: 0 };
    this.quotaUsed.set(key, current);
    if (current.count >= this.knobs.dailyQuota) return Math.max(1, Math.ceil(((day + 1) * DAY_MS - now) / 1000));
    current.count += 1;
    return undefined;
  }

  /** The wire names of the endpoint at `path` (under the brand, with its leading slash). */
  paramsOf(path: string): ParamMapping {
    return this.endpointParams.find((endpoint) => endpoint.pattern.test(path))?.mapping ?? this.params;
  }

  get brands(): number[] {
    return Array.from({ length: this.brandCount }, (_, i) => i + 1);
  }

  /** The brand that exists but that the key may not read. */
  get forbiddenBrand(): number {
    return this.brandCount + 1;
  }

  world(brandId: number): BrandWorld {
    let world = this.worlds.get(brandId);
    if (!world) {
      world = generateWorld({
        seed: this.seed,
        brandId,
        firstDay: this.firstDay,
        // Brand 2 has no templates of its own and shows the platform's (no brand does when there is one).
        hasTemplates: brandId !== 2 || this.brandCount < 2,
      });
      this.worlds.set(brandId, world);
    }
    return world;
  }

  setKnobs(partial: unknown): Knobs {
    const knobs = parseKnobs(partial);
    if (knobs.realWritesAnswered !== undefined) this.realWrites = 0;
    this.knobs = { ...this.knobs, ...knobs };
    return this.knobs;
  }
}

/** `citations/domains/{domain}` as a pattern of the path under the brand: each placeholder one segment. */
function endpointPattern(path: string): RegExp {
  const segments = path
    .replace(/^\/+/, '')
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&')));
  return new RegExp(`^/${segments.join('/')}$`);
}
