import { describe, expect, it } from 'vitest';
import { batches, groupBy } from '../src/group-by.js';

describe('groupBy', () => {
  it('keeps the keys in first-seen order and each key’s items in their order', () => {
    const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (item) => item[0]);
    expect([...groups]).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ]);
  });

  it('gives no group for no items', () => {
    expect(groupBy([], () => 'any').size).toBe(0);
  });
});

describe('batches', () => {
  it('splits items into runs of at most the size, in order, the last one shorter', () => {
    expect(batches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batches([], 2)).toEqual([]);
  });
});
