/** Every stream bvsync syncs, in the order a run plans them (dimensions before the facts that use them). */
export const STREAM_NAMES = [
  'visibility',
  'competitors',
  'tracked_urls',
  'conversations',
  'citations',
  'domain_details',
  'product_ranking',
  'templates',
  'articles',
  'content_analyses',
  'fanouts_cited',
  'swot',
  'fanouts_by_phrase',
  'visibility_by_engine',
  'product_ranking_by_engine',
] as const;

export type StreamName = (typeof STREAM_NAMES)[number];

/**
 * Streams a run syncs only when they are named (`sync.streams`, a schedule's `streams`, `--streams`): their calls are
 * a choice, not a default. product_ranking_by_engine costs four calls per day and brand engine, as many again as
 * every default stream together (`npm run bench -- stream-costs`; docs/syncing.md, "What each stream costs").
 */
export const OPT_IN_STREAMS: readonly StreamName[] = ['product_ranking_by_engine'];

/** What a run syncs when no stream is named: every stream but the opt-in ones, in plan order. */
export const DEFAULT_STREAM_NAMES: readonly StreamName[] = STREAM_NAMES.filter((name) => !OPT_IN_STREAMS.includes(name));

export function isStreamName(name: string): name is StreamName {
  return (STREAM_NAMES as readonly string[]).includes(name);
}
