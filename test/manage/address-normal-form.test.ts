import { describe, expect, it } from 'vitest';
import { addressNormalForm, competitorKey } from '../../src/manage/address-normal-form.js';

describe('addressNormalForm', () => {
  it('makes an address with a trailing slash equal the one without (spec, endpoint 1)', () => {
    expect(addressNormalForm('https://example.com/guides/')).toBe(addressNormalForm('https://example.com/guides'));
    expect(addressNormalForm('https://example.com/')).toBe('https://example.com');
    expect(addressNormalForm('https://example.com/a/?q=1')).toBe('https://example.com/a?q=1');
  });

  it('folds only what a URL parser treats as equal: case of scheme and host, default port, fragment', () => {
    expect(addressNormalForm('HTTPS://Example.COM:443/Page#top')).toBe('https://example.com/Page');
    // The path's case is the server's business: two pages, not one.
    expect(addressNormalForm('https://example.com/Page')).not.toBe(addressNormalForm('https://example.com/page'));
  });

  it('refuses what is not an http(s) address', () => {
    expect(addressNormalForm('example.com/page')).toBeUndefined();
    expect(addressNormalForm('ftp://example.com/file')).toBeUndefined();
  });
});

describe('competitorKey', () => {
  it('ignores the case of a name (spec, endpoint 6)', () => {
    expect(competitorKey('Cedarwave')).toBe(competitorKey('CEDARWAVE'));
    expect(competitorKey('Cedar wave')).not.toBe(competitorKey('Cedarwave'));
  });
});
