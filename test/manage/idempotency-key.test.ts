import { describe, expect, it } from 'vitest';
import { canonicalJson, contentIdempotencyKey, freshIdempotencyKey } from '../../src/api/idempotency-key.js';

describe('idempotency values', () => {
  it('are the same for the same request, whatever the order of its keys', () => {
    const a = contentIdempotencyKey('POST', '/customer/v1/brands/1/competitors', { competitors: [{ name: 'A', website: 'a.com' }] });
    const b = contentIdempotencyKey('POST', '/customer/v1/brands/1/competitors', { competitors: [{ website: 'a.com', name: 'A' }] });
    expect(a).toBe(b);
    expect(a).toMatch(/^bvsync-[0-9a-f]{64}$/);
  });

  it('differ for another brand, method or content', () => {
    const body = { urls: [{ url: 'https://example.com/a' }] };
    const key = contentIdempotencyKey('POST', '/customer/v1/brands/1/tracked-urls', body);
    expect(contentIdempotencyKey('POST', '/customer/v1/brands/2/tracked-urls', body)).not.toBe(key);
    expect(contentIdempotencyKey('PATCH', '/customer/v1/brands/1/tracked-urls', body)).not.toBe(key);
    expect(contentIdempotencyKey('POST', '/customer/v1/brands/1/tracked-urls', { urls: [{ url: 'https://example.com/b' }] })).not.toBe(key);
  });

  it('are fresh for every dry run, so a plan never gets an earlier answer replayed', () => {
    expect(freshIdempotencyKey()).not.toBe(freshIdempotencyKey());
  });

  it('canonical JSON leaves out undefined fields and sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"f":2}]},"b":1}');
  });
});
