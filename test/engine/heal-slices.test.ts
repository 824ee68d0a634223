import { describe, expect, it } from 'vitest';
import { healSlices } from '../../src/engine/schedule/heal.js';
import type { PlannedSlice } from '../../src/engine/plan/plan.js';

function slice(
  brandId: number,
  stream: string,
  day: string | null,
  from: string | null = day,
  to: string | null = day,
): PlannedSlice {
  return { brandId, stream, key: `${stream}:${day ?? `${from}..${to}`}`, day, from, to, params: {} } as PlannedSlice;
}

describe('the slices of a heal run', () => {
  it('keeps the day slices of the triples asked, and no other day, stream or brand', () => {
    const planned = [
      slice(1, 'conversations', '2026-11-17'),
      slice(1, 'conversations', '2026-11-18'),
      slice(1, 'visibility', '2026-11-17'),
      slice(2, 'conversations', '2026-11-17'),
    ];
    expect(healSlices(['1|conversations|2026-11-17'], planned)).toEqual([planned[0]]);
  });

  it('keeps a window slice of the stream that holds a day asked, and drops lists with no day', () => {
    const window = slice(1, 'citations', null, '2026-11-15', '2026-11-19');
    const elsewhere = slice(1, 'citations', null, '2026-11-01', '2026-11-05');
    const list = slice(1, 'citations', null, null, null);
    expect(healSlices(['1|citations|2026-11-17'], [window, elsewhere, list])).toEqual([window]);
  });
});
