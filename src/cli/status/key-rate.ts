import type { Redis } from 'ioredis';
import {
  ceilingFor,
  initialRateState,
  learnedNothing,
  rateAt,
  type RatePhase,
  type RateState,
} from '../../api/rate/adaptive-rate.js';
import type { StatedRate } from '../../api/rate/stated-rate.js';
import { RATE_HEADROOM, keyHash, paceCeiling, type RequestsPerSecond } from '../../api/rate/rate-budget.js';
import { RedisRateGate } from '../../api/rate/rate-gate.js';
import { RedisRateStateStore, type StoredRateState } from '../../api/rate/rate-state-store.js';
import type { Config } from '../../configuration.js';
import { redisKeys } from '../../redis-keys.js';

/**
 * The rate of the configured API key as the runs' budgets see it (src/api/rate/rate-budget.ts), for `bvsync rate` and
 * `bvsync status`; `--json` prints it as it is. Only rate facts: never the key, nor its hash.
 */
export interface KeyRate {
  redisPrefix: string;
  /** `api.requestsPerSecond`. */
  configured: RequestsPerSecond;
  /**
   * Requests per second reads pace under: the configured rate times RATE_HEADROOM, or auto's ceiling; or a quota
   * policy the API stated (`RateLimit-Policy`), with the same headroom, if lower.
   */
  ceiling: number;
  /** Requests per second in force now: from the learned state, else the configured rate (or auto's start). */
  rateNow: number;
  /** What sets `rateNow`, in words: "stated by X-RateLimit-Limit", "learned from 429s", "configured", ... */
  rateSource: string;
  /** The rate the API last stated in its headers, and the header; null when it stated none (or nothing is stored). */
  stated: StatedRate | null;
  /** What Redis holds for the key; null when nothing is (never used, expired a day after its last change, reset). */
  learned: LearnedRate | null;
  /** How much longer the API's last Retry-After holds every request of the key back (ms); 0 when it does not. */
  heldBackMs: number;
}

export interface LearnedRate {
  phase: RatePhase;
  /** The API's limit as estimated at the last 429 (or as stated, for `auto`); null while there was none. */
  limit: number | null;
  /** Once a probe above the estimate met a 429: the climb above it then takes a step only every 5 minutes. */
  confirmed: boolean;
  /** When the rate was last cut (UTC ISO); null if never. */
  lastCutAt: string | null;
  /** When Redis forgets it (UTC ISO), a day after its last change; null when it has no expiry. */
  expiresAt: string | null;
}

/** What names the key's rate: the key (hashed, as the budgets name it), its setting, and the Redis prefix. */
export interface KeyRateSettings {
  apiKey: string;
  requestsPerSecond: RequestsPerSecond;
  redisPrefix: string;
}

/** What names the configured key's rate; undefined without an API key. */
export function keyRateSettings(config: Config): KeyRateSettings | undefined {
  const { apiKey, requestsPerSecond } = config.api;
  return apiKey ? { apiKey, requestsPerSecond, redisPrefix: config.redisPrefix } : undefined;
}

/** Reads the key's rate without writing anything. */
export async function readKeyRate(redis: Redis, settings: KeyRateSettings): Promise<KeyRate> {
  const keys = redisKeys(settings.redisPrefix);
  const hash = keyHash(settings.apiKey);
  const [stored, heldBackMs] = await Promise.all([
    new RedisRateStateStore(redis, keys, hash).inspect(),
    new RedisRateGate(redis, keys, hash).blockedMs(),
  ]);
  // The clock once Redis has answered: its expiry counts from then, and an earlier one would date it early.
  return keyRateOf(settings, stored, heldBackMs, Date.now());
}

/** Forgets the key's learned rate; true when one was stored. */
export function resetKeyRate(redis: Redis, settings: KeyRateSettings): Promise<boolean> {
  return new RedisRateStateStore(redis, redisKeys(settings.redisPrefix), keyHash(settings.apiKey)).remove();
}

/** The key's rate from what Redis holds, computed as a budget of the runs would at `now`. */
export function keyRateOf(
  settings: KeyRateSettings,
  stored: StoredRateState | undefined,
  heldBackMs: number,
  now: number,
): KeyRate {
  const auto = settings.requestsPerSecond === 'auto';
  const configuredCeiling = paceCeiling({ requestsPerSecond: settings.requestsPerSecond, headroom: RATE_HEADROOM });
  // A state that learned nothing, written for the other setting, is replaced by a budget on its next read.
  const inForce: RateState =
    stored && !learnedNothing(stored.state, auto) ? stored.state : initialRateState(configuredCeiling, auto, now);
  const ceiling = ceilingFor(inForce, configuredCeiling, RATE_HEADROOM);
  const rateNow = rateAt(inForce, now, ceiling);
  return {
    redisPrefix: settings.redisPrefix,
    configured: settings.requestsPerSecond,
    ceiling,
    rateNow,
    rateSource: rateSourceOf(inForce, rateNow, ceiling, configuredCeiling),
    stated: inForce.stated ?? null,
    learned: stored ? learnedRate(stored, now) : null,
    heldBackMs,
  };
}

/**
 * What holds the key at `rateNow`: the ceiling when it binds (the configured one, or a quota policy the API stated);
 * else a 429's cut (and the climb back from it), or what the API stated, or auto's probe.
 */
function rateSourceOf(state: RateState, rateNow: number, ceiling: number, configuredCeiling: number): string {
  if (rateNow >= ceiling * (1 - 1e-9)) {
    // A stated rate that is no higher than the configured one is what the key runs at, whichever binds first.
    const statedBinds =
      state.stated !== undefined && state.stated.perSecond * RATE_HEADROOM <= configuredCeiling * (1 + 1e-9);
    return statedBinds ? `stated by ${state.stated!.by}` : 'configured (api.requestsPerSecond)';
  }
  if (state.cutAt > 0) return 'learned from 429s';
  if (state.stated) return `stated by ${state.stated.by}`;
  if (state.phase === 'probe') return "auto's probe (no limit met yet)";
  return 'configured (api.requestsPerSecond)';
}

/** A stated rate in words: "10/s, stated by X-RateLimit-Limit (10 per 1 s, the window read from its resets)". */
export function statedText(stated: StatedRate): string {
  const perSecond = Math.round(stated.perSecond * 100) / 100;
  if (stated.windowKnown) return `${perSecond}/s, stated by ${stated.by}`;
  const window = stated.windowSeconds ?? 1;
  return `${perSecond}/s, stated by ${stated.by} (${Math.round(stated.perSecond * window * 100) / 100} per ${window} s, the window read from its resets)`;
}

function learnedRate({ state, expiresInMs }: StoredRateState, now: number): LearnedRate {
  return {
    phase: state.phase,
    limit: state.limit > 0 ? state.limit : null,
    confirmed: state.confirmed === true,
    lastCutAt: state.cutAt > 0 ? new Date(state.cutAt).toISOString() : null,
    expiresAt: expiresInMs === undefined ? null : new Date(now + expiresInMs).toISOString(),
  };
}

/**
 * True when the key runs below its configured ceiling because of what it learned: the case worth a line in
 * `bvsync status`. Never for `auto`, whose point is to run at what it learned, nor while it probes upwards.
 */
export function slowedByLearnedRate(rate: KeyRate): boolean {
  return rate.configured !== 'auto' && rate.learned?.phase === 'steady' && rate.rateSource === 'learned from 429s';
}

/**
 * One line of the key's rate and of the limit the API states, each with its source: the run summary and
 * `bvsync status` print it (docs/syncing.md, "The rate of the API key").
 */
export function rateLine(rate: KeyRate): string {
  const stated = rate.stated ? statedText(rate.stated) : 'none in its headers';
  return `rate of the API key: ${Math.round(rate.rateNow * 100) / 100}/s, ${rate.rateSource}; limit the API states: ${stated}`;
}
