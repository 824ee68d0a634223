import { describe, expect, it } from 'vitest';
import { DEFAULT_KNOBS } from '../../src/simulator/knobs.js';
import { parseSimDay } from '../../src/simulator/sim-days.js';
import { SimulatorApiError } from '../../src/simulator/sim-errors.js';
import { QueryReader } from '../../src/simulator/query.js';

const today = parseSimDay('2026-11-20')!;
const reader = (query: string, strict = true) =>
  new QueryReader(
    new URLSearchParams(query),
    { start_date: 'from' },
    {
      ...DEFAULT_KNOBS,
      strictParams: strict,
      arrayFormat: 'repeat',
      rangeEndEcho: 'inclusive',
    },
  );

describe('query reader', () => {
  it('makes an end day cover its whole day and defaults to 30 days ending today', () => {
    const q = reader('from=2026-11-01&end_date=2026-11-02');
    const range = q.dateRange(today)!;
    expect(new Date(range.startMs).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(new Date(range.endMs).toISOString()).toBe('2026-11-02T23:59:59.999Z');
    expect(q.applied).toEqual({ from: '2026-11-01', end_date: '2026-11-02' });
    const defaulted = reader('').dateRange(today)!;
    expect(new Date(defaulted.startMs).toISOString()).toBe('2026-10-22T00:00:00.000Z');
    expect(new Date(defaulted.endMs).toISOString()).toBe('2026-11-20T23:59:59.999Z');
  });

  it('takes ISO datetimes as exact bounds, in any offset', () => {
    const range = reader('from=2026-11-01T10:00:00%2B02:00&end_date=2026-11-01T12:00:00Z').dateRange(today)!;
    expect(new Date(range.startMs).toISOString()).toBe('2026-11-01T08:00:00.000Z');
    expect(new Date(range.endMs).toISOString()).toBe('2026-11-01T12:00:00.000Z');
  });

  it('throws every problem at once, by wire name, naming unknown parameters when strict', () => {
    const q = reader('start_date=2026-11-01&page=x&from=2026-13-01');
    q.dateRange(today);
    q.int('page', { min: 1 });
    try {
      q.finish();
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SimulatorApiError);
      expect((error as SimulatorApiError).details.map((d) => d.field).sort()).toEqual(['from', 'page', 'start_date']);
    }
    const lenient = reader('whatever=1', false);
    expect(() => lenient.finish()).not.toThrow();
  });
});
