import type { StatedRate } from './stated-rate.js';

/**
 * How the rate of one API key moves, as pure arithmetic over a state every process shares (docs/configuration.md,
 * "The rate budget"). The spec states no limit, so the rate is learned from 429s:
 *
 * - a configured `requestsPerSecond` is the ceiling and the start; `auto` starts at AUTO_START_RATE and doubles
 *   every PROBE_STEP_MS until the first 429 (`probe`);
 * - the first 429 of an episode cuts the rate to what the API was seen to accept (`cut`);
 * - without a 429 the rate climbs back additively (`steady`), never above the ceiling.
 *
 * The climb is computed from the elapsed time, so nothing writes while the rate rises (test/api/adaptive-rate.test.ts).
 */

/** Where `auto` starts (requests per second). */
export const AUTO_START_RATE = 2;
/** The ceiling of `auto` when the API states none: the largest `requestsPerSecond` the config accepts. */
export const AUTO_CEILING = 10_000;
/** `probe`: the rate doubles every second until the first 429. */
const PROBE_FACTOR = 2;
const PROBE_STEP_MS = 1_000;
/**
 * `steady`: +5 % of the estimated limit per step, a step every RECOVERY_STEP_MS below GOOD_RATE_SHARE of it and
 * every STEADY_STEP_MS above. Slow on purpose: each 429 also blocks the whole key for its Retry-After.
 */
const STEADY_STEP_SHARE = 0.05;
export const RECOVERY_STEP_MS = 2_000;
export const STEADY_STEP_MS = 30_000;
/**
 * Above a confirmed limit (see `confirms`) the climb steps only every CONFIRMED_STEP_MS: each step ends in a 429 and
 * a block of the whole key. An unconfirmed estimate is still probed every STEADY_STEP_MS, so a low one is climbed out of.
 */
export const CONFIRMED_STEP_MS = 300_000;
/** A failed probe confirms the limit when the API was seen to accept at least this share of the estimate. */
const CONFIRM_SHARE = 0.9;
/**
 * A 429 cuts the rate to this share of the rate the API accepted over the last second, never above the rate in force;
 * a rate already under what the API accepts (window-edge jitter) keeps going...
 */
export const GOOD_RATE_SHARE = 0.95;
/**
 * ...but a 429 within REPEAT_WINDOW_MS of the last cut shows that cut was not enough (a fixed window's first counts run
 * high), so it also cuts to at most this share of the rate in force...
 */
const REPEAT_WINDOW_MS = 5_000;
const REPEAT_CUT_FACTOR = 0.9;
/** ...or, when no accepted answer was counted, to this share. */
export const CUT_FACTOR = 0.7;
/** The rate never falls below this (one request every 10 s); Retry-After blocks cover longer waits. */
export const MIN_RATE = 0.1;
/** Two stated rates this close (relative) are the same: a state is written again only when the API's word changes. */
const STATED_SAME_SHARE = 1e-6;

export type RatePhase = 'probe' | 'steady';

export interface RateState {
  /** Requests per second at `at`. */
  rate: number;
  /** When `rate` was set (ms since the epoch). */
  at: number;
  phase: RatePhase;
  /** The API's rate estimated at the last 429 (the base of the additive step); 0 before the first 429. */
  limit: number;
  /** When the rate was last cut; 0 if never. */
  cutAt: number;
  /** True once a probe above the plateau met a 429 (`confirms`): the climb above it slows to CONFIRMED_STEP_MS. */
  confirmed?: boolean;
  /** The rate the API last stated in its headers (requests per second), and how (stated-rate.ts); absent if never. */
  stated?: StatedRate;
}

/**
 * The state of a key nobody has used yet (or whose state expired). A state that learned nothing (no 429, no stated
 * limit) but was written for the other setting (`auto` vs a number) is replaced by this too: see `learnedNothing`.
 */
export function initialRateState(ceiling: number, auto: boolean, now: number): RateState {
  return auto
    ? { rate: Math.min(AUTO_START_RATE, ceiling), at: now, phase: 'probe', limit: 0, cutAt: 0 }
    : { rate: ceiling, at: now, phase: 'steady', limit: 0, cutAt: 0 };
}

/** True when `state` holds nothing a 429 or a stated limit taught, and was started for the other kind of setting. */
export function learnedNothing(state: RateState, auto: boolean): boolean {
  return state.limit === 0 && state.phase !== (auto ? 'probe' : 'steady');
}

/** The rate in force at `now`, never above `ceiling` nor below MIN_RATE (or the ceiling, if lower). */
export function rateAt(state: RateState, now: number, ceiling: number): number {
  const elapsed = Math.max(0, now - state.at);
  let rate: number;
  if (state.phase === 'probe') {
    // Capped exponent: beyond 2^40 x any start is over every ceiling.
    rate = state.rate * PROBE_FACTOR ** Math.min(40, Math.floor(elapsed / PROBE_STEP_MS));
  } else if (state.limit === 0) {
    // Never rate limited: nothing learned, so the ceiling (which may have been raised since the state was written).
    rate = ceiling;
  } else {
    const step = STEADY_STEP_SHARE * state.limit;
    const plateau = GOOD_RATE_SHARE * state.limit;
    const recoverySteps = Math.max(0, Math.ceil((plateau - state.rate) / step));
    const recoveryMs = recoverySteps * RECOVERY_STEP_MS;
    rate =
      elapsed < recoveryMs
        ? Math.min(plateau, state.rate + Math.floor(elapsed / RECOVERY_STEP_MS) * step)
        : Math.max(state.rate, plateau) +
          Math.floor((elapsed - recoveryMs) / (state.confirmed ? CONFIRMED_STEP_MS : STEADY_STEP_MS)) * step;
  }
  return bounded(rate, ceiling);
}

/** `rate` within `ceiling`, and never below MIN_RATE (or the ceiling, if lower). */
function bounded(rate: number, ceiling: number): number {
  return Math.max(Math.min(MIN_RATE, ceiling), Math.min(ceiling, rate));
}

export interface RateLimitedAt {
  now: number;
  /** When the request that met the 429 was sent. */
  sentAt: number;
  /** Answers other than 429 per second over the last second, for the whole key; 0 when none was counted. */
  goodRate: number;
  ceiling: number;
}

/** The state after a 429, or undefined when the 429 belongs to an episode already cut. */
export function afterRateLimited(state: RateState, event: RateLimitedAt): RateState | undefined {
  if (event.sentAt < state.cutAt) return undefined;
  const current = rateAt(state, event.now, event.ceiling);
  const stated = state.stated?.perSecond;
  if (stated !== undefined && current <= stated * (1 + 1e-9)) {
    // At or under the rate the API states, a 429 is window-edge jitter whose accepted count runs low: a cut of
    // REPEAT_CUT_FACTOR is enough (test/api/adaptive-rate.test.ts, "a 429 at or under the rate the API states is jitter").
    return cutTo(state, event, current * REPEAT_CUT_FACTOR, stated, state.confirmed === true);
  }
  const repeated = state.cutAt > 0 && event.now - state.cutAt < REPEAT_WINDOW_MS;
  const most = repeated ? current * REPEAT_CUT_FACTOR : current;
  const cut = event.goodRate > 0 ? Math.min(most, event.goodRate * GOOD_RATE_SHARE) : current * CUT_FACTOR;
  // An isolated 429 with a low count is jitter and keeps the estimate; 429s that keep coming revise it. With nothing
  // accepted the count says nothing of the rate, so the estimate stays (test/api/adaptive-rate.test.ts).
  const limit =
    event.goodRate <= 0
      ? state.limit || current
      : repeated || state.limit === 0
        ? event.goodRate
        : Math.max(event.goodRate, state.limit);
  return cutTo(state, event, cut, limit, state.confirmed === true || confirms(state, current, event.goodRate));
}

/** The state of a 429's cut to `rate`, with the limit it estimates; what the API stated is kept. */
function cutTo(state: RateState, event: RateLimitedAt, rate: number, limit: number, confirmed: boolean): RateState {
  return {
    rate: bounded(rate, event.ceiling),
    at: event.now,
    phase: 'steady',
    limit,
    cutAt: event.now,
    ...(confirmed ? { confirmed } : {}),
    ...(state.stated ? { stated: state.stated } : {}),
  };
}

/**
 * The ceiling of a key: the configured one (with its headroom), or the rate of a quota policy the API stated, with the
 * same headroom, if lower. A rate derived from a bare limit is no ceiling: see `afterStatedLimit`.
 */
export function ceilingFor(state: RateState | undefined, configuredCeiling: number, headroom: number): number {
  const stated = state?.stated;
  return stated?.windowKnown ? Math.min(configuredCeiling, stated.perSecond * headroom) : configuredCeiling;
}

/**
 * True when a 429 at `current` is a failed probe of the limit `state` estimated: the rate was above the plateau and
 * the API still accepted about the estimate (a 429 at or under it may be window-edge jitter).
 */
export function confirms(state: RateState, current: number, goodRate: number): boolean {
  if (state.phase !== 'steady' || state.limit <= 0 || goodRate <= 0) return false;
  const plateau = GOOD_RATE_SHARE * state.limit;
  return current > plateau * (1 + 1e-9) && goodRate >= CONFIRM_SHARE * state.limit;
}

/**
 * The state once the API has stated its rate, or undefined when nothing changes. A quota policy is the ceiling; a rate
 * derived from a bare limit is where the key runs and probes above; after a 429 cut, the learned limit stands.
 */
export function afterStatedLimit(
  state: RateState,
  now: number,
  stated: StatedRate,
  configuredCeiling: number,
  headroom: number,
): RateState | undefined {
  if (sameStatedRate(state.stated, stated) && state.phase !== 'probe') return undefined;
  const withStated: RateState = { ...state, stated };
  if (stated.windowKnown || state.cutAt > 0) {
    if (state.phase !== 'probe') return withStated;
    return {
      ...withStated,
      rate: ceilingFor(withStated, configuredCeiling, headroom),
      at: now,
      phase: 'steady',
      limit: stated.perSecond,
    };
  }
  const rate = bounded(stated.perSecond * headroom, configuredCeiling);
  return { rate, at: now, phase: 'steady', limit: stated.perSecond, cutAt: 0, stated };
}

/** True when two stated rates say the same (a rate within a millionth, by the same header, the window as known). */
export function sameStatedRate(a: StatedRate | undefined, b: StatedRate): boolean {
  return (
    a !== undefined &&
    a.by === b.by &&
    a.windowKnown === b.windowKnown &&
    Math.abs(a.perSecond - b.perSecond) <= STATED_SAME_SHARE * b.perSecond
  );
}
