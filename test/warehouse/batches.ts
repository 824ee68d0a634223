import type { Row, SliceBatch, SliceState, TableWrite } from '../../src/warehouse/load/slice-batch.js';

/** A complete slice state, overridable, so tests spell out only what they check. */
export function completeState(overrides: Partial<SliceState> = {}): SliceState {
  return { status: 'complete', rows: 0, totalRows: null, attempts: 1, requests: 1, lastError: null, ...overrides };
}

/** A slice batch with sensible defaults: brand 7, run `run-1`, no rejects. */
export function sliceBatch(overrides: Partial<SliceBatch> & { writes: TableWrite[] }): SliceBatch {
  return {
    runId: 'run-1',
    brandId: 7,
    stream: 'test',
    sliceKey: 'all',
    day: null,
    rejects: [],
    state: completeState(),
    ...overrides,
  };
}

/** `n` conversation rows of one day, ids from `firstId`, with a few fields varying by id. */
export function conversationRows(day: string, n: number, firstId = 1): Row[] {
  const rows: Row[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const id = firstId + i;
    rows[i] = {
      id,
      day,
      date: `${day}T${String(i % 24).padStart(2, '0')}:15:00.000Z`,
      model: `engine-${id % 5}`,
      has_shopping: id % 7 === 0,
      mentioned: id % 2 === 0,
      recommended: id % 3 === 0,
      position: (id % 6) + 1,
      recommendation_position: id % 3 === 0 ? 1 : null,
      fact_check_passed: true,
      _extra: id % 10 === 0 ? { surprise: id } : undefined,
    };
  }
  return rows;
}
