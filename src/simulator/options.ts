import type { ArrayFormat, ParamMapping } from '../api/param-names.js';
import type { Knobs } from './knobs.js';

/**
 * How `info.query` echoes the range (only the echo changes): `inclusive` as sent, `exclusive` the end's next instant,
 * `midnight` the end day's first instant (silent on coverage), `offset` both ends in a day 5 hours behind UTC.
 */
export type RangeEndEcho = 'inclusive' | 'exclusive' | 'midnight' | 'offset';

/** How a simulator starts; every field is optional (`SIMULATOR_DEFAULTS`). The knobs can also change at run time. */
export interface SimulatorOptions extends Partial<Knobs> {
  /** TCP port; default 0 (a free port). The CLI defaults to 4010. */
  port?: number;
  /** Interface to listen on. */
  host?: string;
  /** Seed of every generated value. */
  seed?: number;
  /** Readable brands, numbered 1..brands; brand brands+1 exists but the key may not read it. */
  brands?: number;
  /** Days of data, ending on today (inclusive). */
  days?: number;
  /** Answers per brand per day (± 15 %, seeded). */
  scale?: number;
  /** The API key the simulator accepts; default `bvk_sim_local_key`. */
  apiKey?: string;
  /** The simulator's today (YYYY-MM-DD, UTC); default the day of `clock`. */
  today?: string;
  /** The time the simulator's clock shifts (ms since the epoch); default the real one. Tests pass one bvsync reads too. */
  clock?: () => number;
  /** Wire names of query parameters, default name -> wire name; default the names in src/api/param-names.ts (those of docs/openapi.yaml). */
  params?: ParamMapping;
  /**
   * Wire names of one endpoint over `params`, by its path under the brand (`tracked-urls`, `citations/domains/{domain}`),
   * as an API whose endpoints name a filter each their own way: bvsync's `api.endpointParams`. Default none.
   */
  endpointParams?: Readonly<Record<string, ParamMapping>>;
  /** How arrays are read from query strings. */
  arrayFormat?: ArrayFormat;
  /** How `info.query` echoes the range (`RangeEndEcho`). */
  rangeEndEcho?: RangeEndEcho;
  /** Name of the idempotency header of writes. */
  idempotencyHeader?: string;
  /** Topics (not deleted) a brand's plan holds. Past it, creates are `plan_limit_reached`. */
  planTopicLimit?: number;
  /** Most answers held in the day cache (about 1 KB each, see docs/simulator.md). */
  maxCachedAnswers?: number;
  /**
   * Awaited before each API request is answered, after its latency, with the outage knob it is answered under: a test
   * holds answers until an event of its own (test/engine/schedule-overlap.int.test.ts). Default none.
   */
  beforeAnswer?: (request: { method: string; path: string; unavailable: string }) => Promise<void> | undefined;
  /** Called once per API request after it is answered (the CLI logs them at debug level). */
  onRequest?: (entry: import('./request-log.js').LoggedRequest) => void;
}

export const DEFAULT_API_KEY = 'bvk_sim_local_key';

/** A simulator's options when not given; `bvsync simulate`'s flags show them (test/simulator/cli-defaults.test.ts). */
export const SIMULATOR_DEFAULTS = {
  host: '127.0.0.1',
  seed: 1,
  brands: 3,
  days: 30,
  scale: 100,
  arrayFormat: 'repeat',
  rangeEndEcho: 'inclusive',
  idempotencyHeader: 'Idempotency-Key',
  planTopicLimit: 12,
  maxCachedAnswers: 250_000,
} as const satisfies SimulatorOptions;
