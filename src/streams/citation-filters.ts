import { RANGE_PARAMS, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import type { ContentType, Ownership, Sentiment } from '../api/schemas.js';

/** The filters the citation reports share (spec endpoints 17 and 18). */
export interface CitationFilters extends RangeFilter, EngineFilter {
  topicIds?: readonly number[];
  ownership?: readonly Ownership[];
  contentTypes?: readonly ContentType[];
  sentiment?: readonly Sentiment[];
  /** true: only pages of the brand; false: only pages of others; absent: every page. */
  firstParty?: boolean;
}

export const CITATION_FILTER_PARAMS = [
  ...RANGE_PARAMS,
  'topic_ids',
  'ownership',
  'content_types',
  'sentiment',
  'first_party',
] as const;

export function citationFilterQuery(o: CitationFilters) {
  return {
    ...rangeQuery(o),
    topic_ids: o.topicIds,
    ownership: o.ownership,
    content_types: o.contentTypes,
    sentiment: o.sentiment,
    first_party: o.firstParty,
  };
}
