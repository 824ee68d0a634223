import { createRequire } from 'node:module';

const requireCommonJs = createRequire(import.meta.url);
let tldts: typeof import('tldts') | undefined;

const HOST_NAME = /^(?!-)[a-z0-9-]{1,63}(?:\.(?!-)[a-z0-9-]{1,63})+$/;

/**
 * The root domain of a URL, website or domain, as the spec takes it: the registrable domain by the public suffix list,
 * private section included; a host without one is kept, lower-cased and without `www.` (test/streams/domains.test.ts).
 */
export function domainOf(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`).hostname;
  } catch {
    return null;
  }
  host = host
    .toLowerCase()
    .replace(/^www\./, '')
    .replace(/\.$/, '');
  // Labels of letters, digits and hyphens (international names arrive as punycode): nothing else reaches a path.
  if (!HOST_NAME.test(host)) return null;
  // Required at the first domain asked for: importing tldts costs some 70 ms of CPU (docs/performance.md).
  tldts ??= requireCommonJs('tldts') as typeof import('tldts');
  return tldts.getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/** Distinct domains, sorted, of a list of URLs, websites and domains. */
export function distinctDomains(texts: Iterable<string | null | undefined>): string[] {
  const domains = new Set<string>();
  for (const text of texts) {
    const domain = text ? domainOf(text) : null;
    if (domain) domains.add(domain);
  }
  return [...domains].sort();
}
