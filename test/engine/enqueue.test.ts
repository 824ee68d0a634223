import { describe, expect, it } from 'vitest';
import { jobId } from '../../src/engine/jobs/enqueue.js';
import { decodeChunk, encodeChunk } from '../../src/engine/fetch/chunk-codec.js';

describe('jobId', () => {
  it('is the same for the same slice and different for another', () => {
    expect(jobId('fetch', 'run1', 7, 'conversations', '2026-11-20')).toBe(
      jobId('fetch', 'run1', 7, 'conversations', '2026-11-20'),
    );
    expect(jobId('fetch', 'run1', 7, 'conversations', '2026-11-20')).not.toBe(
      jobId('fetch', 'run1', 7, 'conversations', '2026-11-21'),
    );
    expect(jobId('fetch', 'run1', 7, 'a', 'b.c')).not.toBe(jobId('fetch', 'run1', 7, 'a.b', 'c'));
  });

  it('never holds a colon and is never all digits, whatever the slice holds', () => {
    const id = jobId('fetch', 'r', 1, 'domain_details', '../evil:com?x=#"; DROP TABLE x; --/ü');
    expect(id).not.toContain(':');
    expect(id).not.toMatch(/^\d+$/);
    expect(id).toMatch(/^[A-Za-z0-9_.-]+$/);
  });
});

describe('chunk codec', () => {
  it('round-trips rows and compresses repetitive ones', () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({
      brand_id: 1,
      id: i,
      day: '2026-11-20',
      model: 'engine-a',
      mentioned: i % 2 === 0,
    }));
    const encoded = encodeChunk(rows);
    expect(decodeChunk(encoded)).toEqual(rows);
    expect(encoded.length).toBeLessThan(JSON.stringify(rows).length / 4);
  });
});
