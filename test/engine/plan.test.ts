import { describe, expect, it } from 'vitest';
import { completeThrough, daysToFetch, nextCursor, phaseOf, planPhase } from '../../src/engine/plan/plan.js';
import { getStream } from '../../src/streams/registry.js';
import { perDay, once } from '../../src/streams/slicing.js';
import type { StreamPlanning } from '../../src/streams/stream.js';
import type { SliceStatus } from '../../src/vocabulary.js';
import { parseConfig } from '../../src/configuration.js';

const sync = parseConfig({ sync: { lookbackDays: 3, initialDays: 10 } }).sync;
const today = '2026-11-21';

describe('daysToFetch', () => {
  it('starts a stream with no state initialDays back, today included', () => {
    const days = daysToFetch({ kind: 'incremental', today }, sync, undefined);
    expect(days[0]).toBe('2026-11-12');
    expect(days.at(-1)).toBe(today);
    expect(days).toHaveLength(10);
  });

  it('fetches the days since the cursor plus the lookback again', () => {
    expect(daysToFetch({ kind: 'incremental', today }, sync, '2026-11-20')).toEqual([
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
    ]);
    expect(daysToFetch({ kind: 'incremental', today }, sync, '2026-11-15')).toEqual([
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
    ]);
  });

  it('backfills the window asked, never past today', () => {
    expect(daysToFetch({ kind: 'backfill', from: '2026-11-19', to: '2026-11-25', today }, sync, '2026-11-20')).toEqual([
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
    ]);
  });
});

describe('planPhase: slices', () => {
  const daily: StreamPlanning = { name: 'visibility', slices: (input) => perDay(input) };
  const full: StreamPlanning = { name: 'templates', slices: (input) => once(input) };
  const late: StreamPlanning = {
    name: 'domain_details',
    needs: ['domains'],
    slices: (input) => input.dimensions.domains.flatMap((d) => perDay(input, { domain: d }, `${d}/`)),
  };

  it('plans brands x streams x slices of the phase asked', () => {
    const input = {
      mode: { kind: 'backfill' as const, from: '2026-11-20', to: '2026-11-21', today },
      brands: [1, 2],
      streams: [daily, full, late],
      sync,
      cursors: new Map<string, string>(),
      dimensions: (brandId: number) => ({
        domains: brandId === 1 ? ['a.com', 'b.com'] : [],
        topicIds: [],
        pages: [],
        engines: [],
      }),
    };
    const phase1 = planPhase({ ...input, phase: 1 }).slices;
    expect(phase1.map((s) => `${s.brandId}/${s.stream}/${s.key}`)).toEqual([
      '1/visibility/2026-11-20',
      '1/visibility/2026-11-21',
      '1/templates/all',
      '2/visibility/2026-11-20',
      '2/visibility/2026-11-21',
      '2/templates/all',
    ]);
    const phase2 = planPhase({ ...input, phase: 2 }).slices;
    expect(phase2.map((s) => `${s.brandId}/${s.key}`)).toEqual([
      '1/a.com/2026-11-20',
      '1/a.com/2026-11-21',
      '1/b.com/2026-11-20',
      '1/b.com/2026-11-21',
    ]);
  });
});

describe('planPhase', () => {
  it('names a per-engine stream that could plan nothing for a brand whose engines are not known, and nothing else', () => {
    const byEngine = getStream('visibility_by_engine');
    const late: StreamPlanning = {
      name: 'domain_details',
      needs: ['domains'],
      slices: (input) => input.dimensions.domains.flatMap((d) => perDay(input, { domain: d }, `${d}/`)),
    };
    const input = {
      mode: { kind: 'backfill' as const, from: '2026-11-20', to: '2026-11-21', today },
      brands: [1, 2],
      streams: [byEngine, late],
      phase: phaseOf(byEngine, sync),
      sync,
      cursors: new Map<string, string>(),
      dimensions: (brandId: number) => ({
        domains: [],
        topicIds: [],
        pages: [],
        engines: brandId === 1 ? ['chatgpt'] : [],
      }),
    };
    const { slices, gaps } = planPhase(input);
    expect(slices.map((s) => `${s.brandId}/${s.stream}/${s.key}`)).toEqual([
      '1/visibility_by_engine/chatgpt/2026-11-20',
      '1/visibility_by_engine/chatgpt/2026-11-21',
    ]);
    // No domain cited is a list that may be empty; no engine at all is bvsync not knowing them.
    expect(gaps).toEqual([
      { brandId: 2, stream: 'visibility_by_engine', why: expect.stringContaining('set sync.engineBreakdown') },
    ]);
    const configured = parseConfig({ sync: { engineBreakdown: ['gemini'] } }).sync;
    expect(planPhase({ ...input, sync: configured }).gaps).toEqual([]);
  });
});

describe('nextCursor', () => {
  const slice = (day: string | null, status: SliceStatus = 'complete') => ({ day, status });

  it('moves to yesterday when every day completed, never to today', () => {
    expect(nextCursor('2026-11-15', today, [slice('2026-11-19'), slice('2026-11-20'), slice('2026-11-21')])).toBe(
      '2026-11-20',
    );
  });

  it('stops before the first day that did not complete', () => {
    expect(
      nextCursor('2026-11-10', today, [slice('2026-11-17'), slice('2026-11-18', 'failed'), slice('2026-11-19')]),
    ).toBe('2026-11-17');
    expect(nextCursor(undefined, today, [slice('2026-11-17', 'incomplete'), slice('2026-11-18')])).toBeUndefined();
  });

  it('never moves backwards, and holds when a window slice failed', () => {
    expect(nextCursor('2026-11-20', today, [slice('2026-11-19', 'failed')])).toBe('2026-11-20');
    expect(nextCursor('2026-11-18', today, [slice(null, 'failed')])).toBe('2026-11-18');
    expect(nextCursor('2026-11-18', today, [slice(null)])).toBe('2026-11-20');
  });
});

describe('completeThrough', () => {
  const day = (d: string, complete = true) => ({ day: d, complete });

  it('is the last day of an unbroken run of complete days from the first day on', () => {
    expect(
      completeThrough('2026-11-10', [day('2026-11-10'), day('2026-11-11'), day('2026-11-12'), day('2026-11-14')]),
    ).toBe('2026-11-12');
  });

  it('stops at a day with a slice that did not complete, and is nothing when the first day is missing', () => {
    expect(completeThrough('2026-11-10', [day('2026-11-10'), day('2026-11-11', false), day('2026-11-12')])).toBe(
      '2026-11-10',
    );
    expect(completeThrough('2026-11-10', [day('2026-11-11'), day('2026-11-12')])).toBeUndefined();
    expect(completeThrough('2026-11-10', [])).toBeUndefined();
  });
});
