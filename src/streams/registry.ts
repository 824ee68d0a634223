import { PAGING_PARAM_NAMES } from '../api/param-names.js';
import { articles } from './articles.js';
import { citations } from './citations.js';
import { citedPageFanouts } from './cited-page-fanouts.js';
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
import type { AnyStream } from './stream.js';

/**
 * Every stream bvsync syncs: the only list of them. Stream names, the query parameter names, the `sync` settings
 * and the plan's phases all derive from it. The order is the order a run plans and reports them in.
 */
const STREAM_LIST = [
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
  citedPageFanouts,
  visibilityByEngine,
  productRankingByEngine,
] as const;

type Declared = (typeof STREAM_LIST)[number];

/** A stream name that is not in the registry (a `--streams` flag, a config's `sync.streams`, a job of an older version). */
class UnknownStreamError extends Error {
  readonly code = 'unknown_stream';
  override readonly name = 'UnknownStreamError';
}

export type StreamName = Declared['name'];

export const STREAM_NAMES = STREAM_LIST.map((stream) => stream.name) as unknown as readonly [
  StreamName,
  ...StreamName[],
];

export function isStreamName(name: string): name is StreamName {
  return (STREAM_NAMES as readonly string[]).includes(name);
}

/** What a run syncs when no stream is named: every stream but the opt-in ones, in the registry's order. */
export const DEFAULT_STREAM_NAMES: readonly StreamName[] = STREAM_LIST.filter(
  (stream) => !('optIn' in stream && stream.optIn),
).map((stream) => stream.name);

/** Every stream by name, in the registry's order. */
export const STREAMS: ReadonlyMap<StreamName, AnyStream> = new Map(
  STREAM_LIST.map((stream) => [stream.name, stream as AnyStream]),
);

/** The settings every stream adds to `sync`, merged into the config schema by src/configuration.ts. */
type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void
  ? I
  : never;
export type StreamSettingsShape = UnionToIntersection<NonNullable<Declared['settings']>>;
export const STREAM_SETTINGS = Object.assign(
  {},
  ...STREAM_LIST.map((stream) => stream.settings ?? {}),
) as StreamSettingsShape;

/** The query parameter names bvsync may send (before `api.params` maps them to wire names). */
export type ParamName = Declared['endpoint']['params'][number] | (typeof PAGING_PARAM_NAMES)[number];
export const PARAM_NAMES: readonly ParamName[] = [
  ...new Set([
    ...STREAM_LIST.flatMap((stream) => stream.endpoint.params as readonly ParamName[]),
    ...PAGING_PARAM_NAMES,
  ]),
];

export function isParamName(name: string): name is ParamName {
  return (PARAM_NAMES as readonly string[]).includes(name);
}

/**
 * The parameters each endpoint may send, paging names included where it pages, by endpoint name (`api.endpointParams`
 * is checked against them). Two streams reading one endpoint (fanouts/cited) send the union.
 */
export const ENDPOINT_PARAMS: ReadonlyMap<string, readonly ParamName[]> = (() => {
  const byName = new Map<string, Set<ParamName>>();
  for (const { endpoint } of STREAM_LIST) {
    const names = byName.get(endpoint.name) ?? new Set<ParamName>();
    for (const param of endpoint.params as readonly ParamName[]) names.add(param);
    if ('maxPageSize' in endpoint && endpoint.maxPageSize !== undefined)
      for (const param of PAGING_PARAM_NAMES) names.add(param);
    byName.set(endpoint.name, names);
  }
  return new Map([...byName].map(([name, params]) => [name, [...params]]));
})();

export function getStream(name: string): AnyStream {
  const stream = isStreamName(name) ? STREAMS.get(name) : undefined;
  if (!stream) throw new UnknownStreamError(`unknown stream "${name}"; streams: ${STREAM_NAMES.join(', ')}`);
  return stream;
}

/** Parses `--streams a,b` (or the config's list) into declarations, in the registry's order; none named: the default ones. */
export function selectStreams(names: readonly string[] | undefined): AnyStream[] {
  if (!names || names.length === 0) return [...STREAMS.values()].filter((stream) => !stream.optIn);
  const unknown = names.filter((name) => !isStreamName(name));
  if (unknown.length) {
    throw new UnknownStreamError(
      `unknown stream${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; streams: ${STREAM_NAMES.join(', ')}`,
    );
  }
  return [...STREAMS.values()].filter((stream) => names.includes(stream.name));
}
