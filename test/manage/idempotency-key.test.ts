import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  contentIdempotencyKey,
  freshIdempotencyKey,
  stableIdempotencyKey,
} from '../../src/api/writes/idempotency-key.js';

describe('idempotency values', () => {
  it('are the same for the same request, whatever the order of its keys', () => {
    const a = contentIdempotencyKey('s1', 'POST', '/customer/v1/brands/1/competitors', {
      competitors: [{ name: 'A', website: 'a.com' }],
    });
    const b = contentIdempotencyKey('s1', 'POST', '/customer/v1/brands/1/competitors', {
      competitors: [{ website: 'a.com', name: 'A' }],
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^bvsync-[0-9a-f]{64}$/);
  });

  it('differ for another brand, method or content', () => {
    const body = { urls: [{ url: 'https://example.com/a' }] };
    const key = contentIdempotencyKey('s1', 'POST', '/customer/v1/brands/1/tracked-urls', body);
    expect(contentIdempotencyKey('s1', 'POST', '/customer/v1/brands/2/tracked-urls', body)).not.toBe(key);
    expect(contentIdempotencyKey('s1', 'PATCH', '/customer/v1/brands/1/tracked-urls', body)).not.toBe(key);
    expect(
      contentIdempotencyKey('s1', 'POST', '/customer/v1/brands/1/tracked-urls', {
        urls: [{ url: 'https://example.com/b' }],
      }),
    ).not.toBe(key);
  });

  it('differ for another session (apply), so a write someone undid since is written again, not replayed', () => {
    const body = { title: 'New' };
    expect(contentIdempotencyKey('s2', 'PATCH', '/customer/v1/brands/1/tracked-urls/7', body)).not.toBe(
      contentIdempotencyKey('s1', 'PATCH', '/customer/v1/brands/1/tracked-urls/7', body),
    );
  });

  it('of a change no read can compare are the same in every apply, and differ by content and path', () => {
    const key = stableIdempotencyKey('PATCH', '/customer/v1/brands/1/personas/7', { city: 'Lisbon', country: 'PT' });
    expect(stableIdempotencyKey('PATCH', '/customer/v1/brands/1/personas/7', { country: 'PT', city: 'Lisbon' })).toBe(
      key,
    );
    expect(
      stableIdempotencyKey('PATCH', '/customer/v1/brands/1/personas/8', { city: 'Lisbon', country: 'PT' }),
    ).not.toBe(key);
    expect(
      stableIdempotencyKey('PATCH', '/customer/v1/brands/1/personas/7', { city: 'Porto', country: 'PT' }),
    ).not.toBe(key);
    expect(key).toMatch(/^bvsync-same-[0-9a-f]{64}$/);
  });

  it('are fresh for every dry run, so a plan never gets an earlier answer replayed', () => {
    expect(freshIdempotencyKey()).not.toBe(freshIdempotencyKey());
  });

  it('canonical JSON leaves out undefined fields and sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: undefined }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"f":2}]},"b":1}',
    );
  });
});
