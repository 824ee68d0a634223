import type { Citation } from '../world/answers.js';

/** The citation-level filters of endpoints 17 and 18. Undefined means no filter. */
export interface CitationFilter {
  ownership?: ReadonlySet<string>;
  contentTypes?: ReadonlySet<string>;
  sentiment?: ReadonlySet<string>;
  /** true: only pages of the brand; false: only pages of others. */
  firstParty?: boolean;
}

export function citationMatches(citation: Citation, filter: CitationFilter): boolean {
  if (filter.ownership && !filter.ownership.has(citation.page.ownership)) return false;
  if (filter.contentTypes && !filter.contentTypes.has(citation.page.contentType)) return false;
  if (filter.sentiment && !filter.sentiment.has(citation.sentiment)) return false;
  if (filter.firstParty !== undefined && citation.page.firstParty !== filter.firstParty) return false;
  return true;
}

/** Root domains as the filters take them: lower case, no `www.`. */
export function normalizeDomain(domain: string): string {
  return domain
    .trim()
    .toLowerCase()
    .replace(/^www\./, '');
}
