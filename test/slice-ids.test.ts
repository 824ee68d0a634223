import { describe, expect, it } from 'vitest';
import { brandStreamId, sliceId, splitBrandStreamId } from '../src/slice-ids.js';

describe('slice ids', () => {
  it('spell a slice as its brand stream id and its key, as the ids stored in Redis are', () => {
    expect(brandStreamId(7, 'conversations')).toBe('7|conversations');
    expect(sliceId(7, 'conversations', '2026-11-20')).toBe('7|conversations|2026-11-20');
    expect(sliceId(7, 'citations', 'example.com|2026-11-20')).toBe('7|citations|example.com|2026-11-20');
  });

  it('split a brand stream id back into its brand and stream', () => {
    expect(splitBrandStreamId(brandStreamId(7, 'conversations'))).toEqual({ brand: '7', stream: 'conversations' });
    expect(splitBrandStreamId('7')).toEqual({ brand: '7', stream: '' });
  });
});
