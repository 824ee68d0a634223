import { describe, expect, it } from 'vitest';
import {
  AUTO_START_RATE,
  CONFIRMED_STEP_MS,
  CUT_FACTOR,
  GOOD_RATE_SHARE,
  MIN_RATE,
  RECOVERY_STEP_MS,
  STEADY_STEP_MS,
  afterRateLimited,
  afterStatedLimit,
  ceilingFor,
  confirms,
  initialRateState,
  learnedNothing,
  rateAt,
} from '../../src/api/rate/adaptive-rate.js';
import { nextAllowingSlot, slotAllowance } from '../../src/api/rate/rate-budget.js';
import {
  MemoryRateGate,
  acceptedRateEstimate,
  slidingRate,
  unitTime,
  type GateTurn,
} from '../../src/api/rate/rate-gate.js';

const T0 = 1_800_000_000_000;

describe('the adaptive rate', () => {
  it('starts a configured key at its ceiling and keeps it there without a 429', () => {
    const state = initialRateState(38, false, T0);
    expect(state).toMatchObject({ rate: 38, phase: 'steady', limit: 0, cutAt: 0 });
    expect(rateAt(state, T0 + 600_000, 38)).toBe(38);
  });

  it('auto starts at 2/s and doubles every second until the first 429, never past the ceiling', () => {
    const state = initialRateState(10_000, true, T0);
    expect(state).toMatchObject({ rate: AUTO_START_RATE, phase: 'probe' });
    expect([0, 999, 1_000, 2_500, 4_000].map((ms) => rateAt(state, T0 + ms, 10_000))).toEqual([2, 2, 4, 8, 32]);
    expect(rateAt(state, T0 + 3_600_000, 10_000)).toBe(10_000);
    expect(rateAt(state, T0 + 4_000, 20)).toBe(20);
  });

  it('a 429 cuts to 95 % of the rate the API accepted when the rate is well above it', () => {
    const state = initialRateState(80, false, T0);
    const cut = afterRateLimited(state, { now: T0 + 800, sentAt: T0 + 700, goodRate: 20, ceiling: 80 })!;
    expect(cut).toEqual({ rate: 19, at: T0 + 800, phase: 'steady', limit: 20, cutAt: T0 + 800 });
  });

  it('a 429 while the API accepts about what is sent cuts to 95 % of that; one under it (window-edge jitter) keeps the rate', () => {
    const state = { rate: 19, at: T0, phase: 'steady' as const, limit: 20, cutAt: T0 - 60_000 };
    expect(afterRateLimited(state, { now: T0 + 1_000, sentAt: T0 + 900, goodRate: 19, ceiling: 76 })!.rate).toBeCloseTo(
      18.05,
      5,
    );
    const jitter = afterRateLimited(state, { now: T0 + 1_000, sentAt: T0 + 900, goodRate: 20.5, ceiling: 76 })!;
    expect(jitter).toMatchObject({ rate: 19, limit: 20.5, cutAt: T0 + 1_000 });
  });

  it('a 429 moments after the last cut cuts by 10 % at least: the last cut, from a count that ran high, was not enough', () => {
    const state = { rate: 21, at: T0, phase: 'steady' as const, limit: 22, cutAt: T0 };
    expect(
      afterRateLimited(state, { now: T0 + 2_000, sentAt: T0 + 1_900, goodRate: 23, ceiling: 76 })!.rate,
    ).toBeCloseTo(18.9, 5);
    expect(afterRateLimited(state, { now: T0 + 20_000, sentAt: T0 + 19_900, goodRate: 23, ceiling: 76 })!.rate).toBe(
      21,
    );
  });

  it('an isolated 429 with a low count keeps the limit estimate (the rate climbs back fast); 429s that keep coming lower it', () => {
    const state = { rate: 19, at: T0, phase: 'steady' as const, limit: 20, cutAt: T0 };
    const isolated = afterRateLimited(state, { now: T0 + 20_000, sentAt: T0 + 19_900, goodRate: 18, ceiling: 76 })!;
    expect(isolated.rate).toBeCloseTo(17.1, 9);
    expect(isolated.limit).toBe(20);
    expect(rateAt(isolated, T0 + 20_000 + 2 * RECOVERY_STEP_MS, 76)).toBe(19);
    const repeated = afterRateLimited(state, { now: T0 + 2_000, sentAt: T0 + 1_900, goodRate: 18, ceiling: 76 })!;
    expect(repeated.limit).toBe(18);
  });

  it('with nothing accepted to measure, cuts by the multiplicative factor', () => {
    const state = initialRateState(40, false, T0);
    expect(afterRateLimited(state, { now: T0 + 10, sentAt: T0, goodRate: 0, ceiling: 40 })!.rate).toBe(40 * CUT_FACTOR);
  });

  it('keeps the limit it learned through 429s with nothing accepted (an API counting per minute), so the climb back is fast', () => {
    // 20 requests a minute, no Retry-After: after the window's 20, every request meets a 429 until the minute ends.
    let state = afterRateLimited(initialRateState(10, false, T0), {
      now: T0 + 2_000,
      sentAt: T0 + 1_900,
      goodRate: 9,
      ceiling: 10,
    })!;
    expect(state.limit).toBe(9);
    let now = T0 + 2_000;
    for (let i = 0; i < 20; i++) {
      now += 2_000;
      state = afterRateLimited(state, { now, sentAt: now - 100, goodRate: 0, ceiling: 10 }) ?? state;
    }
    // The rate is cut far below it, but the estimate stays: before, each cut set it to the rate in force (0.14/s at
    // the end), and the climb back, a share of it, took some ten hours.
    expect(state.rate).toBeLessThan(1.5);
    expect(state.limit).toBe(9);
    expect(rateAt(state, now + 20 * RECOVERY_STEP_MS, 10)).toBeGreaterThanOrEqual(GOOD_RATE_SHARE * 9 - 1e-9);
  });

  it('cuts once per episode: a 429 of a request sent before the last cut changes nothing', () => {
    const state = initialRateState(80, false, T0);
    const cut = afterRateLimited(state, { now: T0 + 800, sentAt: T0 + 700, goodRate: 20, ceiling: 80 })!;
    expect(afterRateLimited(cut, { now: T0 + 850, sentAt: T0 + 790, goodRate: 20, ceiling: 80 })).toBeUndefined();
    expect(
      afterRateLimited(cut, { now: T0 + 1_900, sentAt: T0 + 1_800, goodRate: 19, ceiling: 80 })!.rate,
    ).toBeLessThan(cut.rate);
  });

  it('climbs back additively, 5 % of the estimated limit per step: fast up to 95 % of it, slowly above, never past the ceiling', () => {
    const cut = { rate: 19, at: T0, phase: 'steady' as const, limit: 20, cutAt: T0 };
    expect(rateAt(cut, T0 + STEADY_STEP_MS - 1, 76)).toBe(19);
    expect(rateAt(cut, T0 + STEADY_STEP_MS, 76)).toBe(20);
    expect(rateAt(cut, T0 + 3 * STEADY_STEP_MS, 76)).toBe(22);
    expect(rateAt(cut, T0 + 1_000 * STEADY_STEP_MS, 76)).toBe(76);
    // A ceiling lowered later (a limit the API stated) binds at once.
    expect(rateAt(cut, T0, 10)).toBe(10);
    // Cut deeper than the API accepts (nothing was counted): back to 95 % of the limit a step every RECOVERY_STEP_MS.
    const deep = { rate: 14, at: T0, phase: 'steady' as const, limit: 20, cutAt: T0 };
    expect([0, 1, 2, 5, 6].map((n) => rateAt(deep, T0 + n * RECOVERY_STEP_MS, 76))).toEqual([14, 15, 16, 19, 19]);
    expect(rateAt(deep, T0 + 5 * RECOVERY_STEP_MS + STEADY_STEP_MS, 76)).toBe(20);
  });

  it('a probe above the plateau that meets a 429 confirms the limit: the climb above it then waits CONFIRMED_STEP_MS per step', () => {
    const atPlateau = { rate: 19, at: T0, phase: 'steady' as const, limit: 20, cutAt: T0 - 60_000 };
    // One probe step above the plateau: 20/s.
    const probing = T0 + STEADY_STEP_MS;
    expect(rateAt(atPlateau, probing, 76)).toBe(20);
    const confirmed = afterRateLimited(atPlateau, {
      now: probing,
      sentAt: probing - 100,
      goodRate: 19.5,
      ceiling: 76,
    })!;
    expect(confirmed.confirmed).toBe(true);
    expect(confirmed.rate).toBeCloseTo(18.525, 9);
    // Back to the plateau in one recovery step, then held there far longer than an unconfirmed limit.
    const back = probing + RECOVERY_STEP_MS;
    expect(rateAt(confirmed, back, 76)).toBeCloseTo(19, 9);
    expect(rateAt(confirmed, back + 5 * STEADY_STEP_MS, 76)).toBeCloseTo(19, 9);
    expect(rateAt(confirmed, back + CONFIRMED_STEP_MS, 76)).toBeCloseTo(20, 9);
    // Confirmed stays confirmed through later cuts.
    expect(
      afterRateLimited(confirmed, { now: probing + 400_000, sentAt: probing + 399_900, goodRate: 12, ceiling: 76 })!
        .confirmed,
    ).toBe(true);
  });

  it('a 429 at or under the plateau, a first 429, or one with a count cut short confirms nothing', () => {
    const atPlateau = { rate: 19, at: T0, phase: 'steady' as const, limit: 20, cutAt: T0 - 60_000 };
    expect(confirms(atPlateau, 20, 19.5)).toBe(true);
    expect(confirms(atPlateau, 20, 18)).toBe(true);
    expect(confirms(atPlateau, 20, 17.9)).toBe(false);
    expect(confirms(atPlateau, 19, 19.5)).toBe(false);
    expect(confirms(atPlateau, 20, 0)).toBe(false);
    expect(confirms(initialRateState(80, false, T0), 80, 20)).toBe(false);
    const jitter = afterRateLimited(atPlateau, { now: T0 + 1_000, sentAt: T0 + 900, goodRate: 19.5, ceiling: 76 })!;
    expect(jitter.confirmed).toBeUndefined();
    const first = afterRateLimited(initialRateState(80, false, T0), {
      now: T0 + 800,
      sentAt: T0 + 700,
      goodRate: 20,
      ceiling: 80,
    })!;
    expect(first.confirmed).toBeUndefined();
    expect(rateAt(first, T0 + 800 + STEADY_STEP_MS, 80)).toBe(20);
  });

  it('never falls below the floor, nor above a ceiling lower than the floor', () => {
    const low = { rate: 0.01, at: T0, phase: 'steady' as const, limit: 0.01, cutAt: T0 };
    expect(rateAt(low, T0, 5)).toBe(MIN_RATE);
    expect(rateAt(low, T0, 0.05)).toBe(0.05);
    expect(afterRateLimited(low, { now: T0 + 10, sentAt: T0 + 5, goodRate: 0, ceiling: 5 })!.rate).toBe(MIN_RATE);
  });

  it('a key never rate limited runs at the ceiling in force, even one raised since; a state of the other setting is started afresh', () => {
    const configured = initialRateState(9.5, false, T0);
    expect(rateAt(configured, T0 + 1, 19)).toBe(19);
    expect(learnedNothing(configured, true)).toBe(true);
    expect(learnedNothing(configured, false)).toBe(false);
    expect(learnedNothing(initialRateState(10_000, true, T0), false)).toBe(true);
    const cut = afterRateLimited(configured, { now: T0 + 10, sentAt: T0 + 5, goodRate: 8, ceiling: 9.5 })!;
    expect(learnedNothing(cut, true)).toBe(false);
  });

  const POLICY = { perSecond: 20, by: 'RateLimit-Policy', windowKnown: true } as const;
  const BARE = { perSecond: 10, by: 'X-RateLimit-Limit', windowKnown: false, windowSeconds: 1 } as const;

  it('a quota policy ends the probe of auto at its rate with the headroom, and is the ceiling of every key', () => {
    const probing = initialRateState(10_000, true, T0);
    const stated = afterStatedLimit(probing, T0 + 50, POLICY, 10_000, 0.95)!;
    expect(stated).toEqual({ rate: 19, at: T0 + 50, phase: 'steady', limit: 20, cutAt: 0, stated: POLICY });
    const configured = afterStatedLimit(initialRateState(76, false, T0), T0 + 50, POLICY, 76, 0.95)!;
    expect(configured).toMatchObject({ rate: 76, phase: 'steady', limit: 0, stated: POLICY });
    expect(ceilingFor(configured, 76, 0.95)).toBe(19);
    expect(rateAt(configured, T0 + 3_600_000, ceilingFor(configured, 76, 0.95))).toBe(19);
    // The same word again writes nothing.
    expect(afterStatedLimit(configured, T0 + 60, { ...POLICY }, 76, 0.95)).toBeUndefined();
  });

  it('a rate derived from a bare limit is where the key runs, not a ceiling: without a 429 it probes above it', () => {
    const configured = initialRateState(38, false, T0);
    const stated = afterStatedLimit(configured, T0, BARE, 38, 0.95)!;
    expect(stated).toEqual({ rate: 9.5, at: T0, phase: 'steady', limit: 10, cutAt: 0, stated: BARE });
    expect(ceilingFor(stated, 38, 0.95)).toBe(38);
    expect(rateAt(stated, T0 + STEADY_STEP_MS - 1, 38)).toBe(9.5);
    // A derived rate that was too low (5/s from a window read as 2 s) climbs while the API accepts it.
    const low = afterStatedLimit(configured, T0, { ...BARE, perSecond: 5, windowSeconds: 2 }, 38, 0.95)!;
    expect(rateAt(low, T0 + 20 * STEADY_STEP_MS, 38)).toBeCloseTo(9.75);
    // The same word again writes nothing, so the climb goes on; a different one starts from it.
    expect(afterStatedLimit(low, T0 + 5_000, { ...BARE, perSecond: 5, windowSeconds: 2 }, 38, 0.95)).toBeUndefined();
    expect(afterStatedLimit(low, T0 + 5_000, BARE, 38, 0.95)).toMatchObject({ rate: 9.5, limit: 10, at: T0 + 5_000 });
    // Never above the configured ceiling.
    expect(afterStatedLimit(initialRateState(4.75, false, T0), T0, BARE, 4.75, 0.95)).toMatchObject({
      rate: 4.75,
      limit: 10,
    });
  });

  it('a 429 at or under the rate the API states is jitter: it cuts by 10 %, whatever count of accepted answers ran low', () => {
    const stated = afterStatedLimit(initialRateState(38, false, T0), T0, BARE, 38, 0.95)!;
    const cut = afterRateLimited(stated, { now: T0 + 1_000, sentAt: T0 + 900, goodRate: 4.6, ceiling: 38 })!;
    expect(cut).toMatchObject({ rate: 9.5 * 0.9, limit: 10, cutAt: T0 + 1_000, stated: BARE });
    expect(rateAt(cut, T0 + 1_000 + 2 * RECOVERY_STEP_MS, 38)).toBe(9.5);
    // Above the stated rate, a 429 is met as before.
    const above = { ...stated, rate: 20, limit: 0 };
    expect(afterRateLimited(above, { now: T0 + 1_000, sentAt: T0 + 900, goodRate: 10, ceiling: 38 })).toMatchObject({
      rate: 9.5,
      limit: 10,
    });
  });

  it('once a 429 cut the key, its learned limit stands: a bare limit stated after it is only recorded', () => {
    const stated = afterStatedLimit(initialRateState(38, false, T0), T0, BARE, 38, 0.95)!;
    const cut = afterRateLimited(
      { ...stated, rate: 12 },
      { now: T0 + 1_000, sentAt: T0 + 900, goodRate: 8, ceiling: 38 },
    )!;
    expect(cut).toMatchObject({ rate: 7.6, limit: 10, stated: BARE });
    const again = afterStatedLimit(cut, T0 + 2_000, { ...BARE, perSecond: 12 }, 38, 0.95)!;
    expect(again).toEqual({ ...cut, stated: { ...BARE, perSecond: 12 } });
  });
});

describe('the slots of the budget', () => {
  it('share a fractional rate out so that any run of slots holds the rate within one unit', () => {
    const perSlot = 0.4; // 2/s in slots of 200 ms
    const allowances = Array.from({ length: 10 }, (_, i) => slotAllowance(9_000_000_000 + i, perSlot));
    expect(allowances.reduce((a, b) => a + b, 0)).toBe(4);
    expect(allowances.every((a) => a === 0 || a === 1)).toBe(true);
    const busy = Array.from({ length: 5 }, (_, i) => slotAllowance(9_000_000_000 + i, 3.8));
    expect(busy.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(18);
    expect(busy.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(20);
  });

  it('find the next slot that allows a unit', () => {
    for (const perSlot of [0.07, 0.4, 1, 3.8]) {
      for (let slot = 9_000_000_000; slot < 9_000_000_050; slot++) {
        const next = nextAllowingSlot(slot, perSlot);
        expect(slotAllowance(next, perSlot)).toBeGreaterThan(0);
        for (let between = slot + 1; between < next; between++) expect(slotAllowance(between, perSlot)).toBe(0);
      }
    }
  });

  it('space the units of a slot at the rate, inside the slot', () => {
    const slot = 9_000_000_001;
    const times = [1, 2, 3, 4].map((unit) => unitTime(slot, 3.8, unit));
    expect(times[0]).toBeGreaterThan(slot - 1);
    expect(times[3]).toBeLessThan(slot + 1);
    expect(times[1]! - times[0]!).toBeCloseTo(1 / 3.8, 4);
  });
});

describe('the gate of a key', () => {
  // 20/s in slots of 200 ms: 4 units a slot, 50 ms apart.
  const slot = Math.floor(T0 / 200);
  const turn = (now: number, extra: Partial<GateTurn> = {}): GateTurn => ({
    now,
    slot: Math.floor(now / 200),
    allowance: 4,
    perSlot: 4,
    slotMs: 200,
    spacingMs: 50,
    ...extra,
  });

  it('spaces the requests of a key at the spacing, late ones included, and starts afresh once the key was idle', async () => {
    const gate = new MemoryRateGate();
    // Four units of a slot taken late, all due already: they leave 50 ms apart, not together.
    const late = slot * 200 + 199;
    const moments = [];
    for (let i = 0; i < 4; i++) moments.push(await gate.turn(turn(late)));
    expect(moments).toEqual([0, 1, 2, 3].map((i) => ({ kind: 'leave', at: late + 50 * i })));
    expect(await gate.turn(turn(late))).toEqual({ kind: 'slot-full' });
    // A unit due later than the last reservation leaves when due.
    expect(await gate.turn(turn(slot * 200 + 2_000))).toEqual({ kind: 'leave', at: slot * 200 + 2_000 });
  });

  it('spreads the units of a slot taken on time over the slot', async () => {
    const gate = new MemoryRateGate();
    const start = slot * 200;
    const moments = [];
    for (let i = 0; i < 4; i++) moments.push(await gate.turn(turn(start)));
    expect(moments.map((m) => (m.kind === 'leave' ? m.at - start : -1))).toEqual([0, 50, 100, 150]);
  });

  it('tells a turn of a slot that is over that its slot is full, without starting the slot being counted afresh', async () => {
    const gate = new MemoryRateGate();
    const start = (slot + 1) * 200;
    for (let i = 0; i < 4; i++) expect((await gate.turn(turn(start))).kind).toBe('leave');
    // A turn that read the clock before the others but reached the gate after them.
    expect(await gate.turn(turn(start - 1))).toEqual({ kind: 'slot-full' });
    expect(await gate.turn(turn(start + 10))).toEqual({ kind: 'slot-full' });
  });

  it('reports a block without taking a unit, and counts the accepted answers a turn carries', async () => {
    const gate = new MemoryRateGate();
    await gate.blockFor(1_000);
    const blocked = await gate.turn(
      turn(Date.now(), { accepted: { second: Math.floor(Date.now() / 1000), count: 7 } }),
    );
    expect(blocked.kind).toBe('blocked');
    expect(blocked.kind === 'blocked' && blocked.ms).toBeGreaterThan(900);
    expect(await gate.acceptedRate(Date.now())).toBeGreaterThanOrEqual(7);
  });
});

describe('acceptedRateEstimate', () => {
  it('is the count of the last 1,000 ms, but never more than one whole second held', () => {
    // A 429 late in a full window of a 20/s API: the last 1,000 ms hold 20 + a tenth of the 20 before.
    expect(acceptedRateEstimate(20, 20, T0 + 900)).toBe(20);
    expect(acceptedRateEstimate(4, 20, T0 + 200)).toBe(20);
    // After a second of nothing (a Retry-After block), what came since.
    expect(acceptedRateEstimate(8, 0, T0 + 500)).toBe(8);
    expect(acceptedRateEstimate(10, 20, T0 + 500)).toBe(20);
    expect(acceptedRateEstimate(3, 20, T0 + 900)).toBeCloseTo(5, 9);
  });
});

describe('slidingRate', () => {
  it('counts the current second and the part of the previous one still inside the last 1,000 ms', () => {
    expect(slidingRate(10, 20, T0 + 500)).toBe(20);
    expect(slidingRate(3, 20, T0 + 900)).toBeCloseTo(5, 9);
  });
});
