import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeChunk, encodeChunk } from '../../src/engine/fetch/chunk-codec.js';

describe('chunk codec bytes', () => {
  const rows = Array.from({ length: 500 }, (_, i) => ({
    brand_id: 1,
    id: i,
    day: '2026-11-20',
    brands: [{ name: 'a', position: i % 5 }],
  }));

  it('stores gzip bytes, not base64 text', () => {
    const encoded = encodeChunk(rows);
    expect(Buffer.isBuffer(encoded)).toBe(true);
    expect([encoded[0], encoded[1]]).toEqual([0x1f, 0x8b]);
    expect(decodeChunk(encoded)).toEqual(rows);
  });

  it('still reads a chunk written as base64 text, as a string or as the bytes Redis returns', () => {
    const legacy = gzipSync(JSON.stringify(rows)).toString('base64');
    expect(decodeChunk(legacy)).toEqual(rows);
    expect(decodeChunk(Buffer.from(legacy))).toEqual(rows);
  });
});
