import { describe, expect, it } from 'vitest';
import { distinctDomains, domainOf } from '../../src/streams/domains.js';

describe('domainOf: the root domain the spec asks for', () => {
  it.each([
    ['https://blog.brand.com/post/1', 'brand.com'],
    ['www.Brand.co.uk', 'brand.co.uk'],
    ['https://shop.eu.brand.co.uk/x?y=1', 'brand.co.uk'],
    ['acme.myshopify.com', 'acme.myshopify.com'],
    ['https://www.acme.test/', 'acme.test'],
    ['news.test.', 'news.test'],
    ['github.io', 'github.io'],
  ])('%s -> %s', (text, root) => {
    expect(domainOf(text)).toBe(root);
  });

  it('refuses what is no host name', () => {
    for (const text of ['', '   ', 'not a domain', 'https://', 'localhost']) expect(domainOf(text)).toBeNull();
  });

  it('asks each root once, whatever subdomains the pages were on', () => {
    expect(
      distinctDomains(['https://blog.brand.com/a', 'https://brand.com/b', 'shop.brand.com', null, 'rival.test']),
    ).toEqual(['brand.com', 'rival.test']);
  });
});
