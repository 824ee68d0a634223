const HOST_NAME = /^(?!-)[a-z0-9-]{1,63}(?:\.(?!-)[a-z0-9-]{1,63})+$/;

/**
 * The domain of a tracked URL, a competitor's website or a configured domain, as the citations filter and the
 * domain detail path want it: the host, lower-cased, without a leading `www.`. Deeper subdomains are kept: the spec
 * asks for "root domains" but names no rule for them, and cutting `blog.example.co.uk` right needs the public
 * suffix list.
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
  host = host.toLowerCase().replace(/^www\./, '').replace(/\.$/, '');
  // Labels of letters, digits and hyphens (international names arrive as punycode): nothing else reaches a path.
  return HOST_NAME.test(host) ? host : null;
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

/** A domain as compared with the API's answers: `domainOf`, or the text lower-cased when it is no host name. */
export function normalizeDomain(text: string): string {
  return domainOf(text) ?? text.trim().toLowerCase();
}
