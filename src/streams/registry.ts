import { UnknownStreamError } from './unknown-stream-error.js';
import { articles } from './articles.js';
import { citations } from './citations.js';
import { competitors } from './competitors.js';
import { contentAnalyses } from './content-analyses.js';
import { conversations } from './conversations.js';
import { domainDetails } from './domain-details.js';
import { fanoutsByPhrase } from './fanouts-by-phrase.js';
import { fanoutsCited } from './fanouts-cited.js';
import { productRanking } from './product-ranking.js';
import { productRankingByEngine } from './product-ranking-by-engine.js';
import { swot } from './swot.js';
import { templates } from './templates.js';
import { trackedUrls } from './tracked-urls.js';
import { visibility } from './visibility.js';
import { visibilityByEngine } from './visibility-by-engine.js';
import type { StreamDefinition } from './stream.js';
import { DEFAULT_STREAM_NAMES, STREAM_NAMES, isStreamName, type StreamName } from './stream-names.js';

/** Every stream bvsync syncs, by name, in the order of STREAM_NAMES (dimensions before the facts that use them). */
export const STREAMS: ReadonlyMap<StreamName, StreamDefinition> = new Map(
  [
    visibility,
    competitors,
    trackedUrls,
    conversations,
    citations,
    domainDetails,
    productRanking,
    templates,
    articles,
    contentAnalyses,
    fanoutsCited,
    swot,
    fanoutsByPhrase,
    visibilityByEngine,
    productRankingByEngine,
  ].map((stream) => [stream.name, stream]),
);

export function getStream(name: string): StreamDefinition {
  const stream = isStreamName(name) ? STREAMS.get(name) : undefined;
  if (!stream) throw new UnknownStreamError(`unknown stream "${name}"; streams: ${[...STREAMS.keys()].join(', ')}`);
  return stream;
}

/** Parses `--streams a,b` (or the config's list) into declarations, in the registry's order; none named: every stream but the opt-in ones. */
export function selectStreams(names: readonly string[] | undefined): StreamDefinition[] {
  if (!names || names.length === 0) return DEFAULT_STREAM_NAMES.flatMap((name) => STREAMS.get(name) ?? []);
  const unknown = names.filter((name) => !isStreamName(name) || !STREAMS.has(name));
  if (unknown.length) {
    throw new UnknownStreamError(`unknown stream${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; streams: ${[...STREAMS.keys()].join(', ')}`);
  }
  return STREAM_NAMES.filter((name) => names.includes(name)).map((name) => STREAMS.get(name)!);
}
