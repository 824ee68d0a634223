import type { ApiClient } from '../../api/client.js';
import { endpointReads } from '../endpoint-reads.js';
import type { ApiConfig } from '../../config/schema.js';
import { searchNames, type EndpointProbe, type NameProposal } from './name-search.js';
import { ENDPOINTS, SENT_PARAMS } from './endpoints.js';
import { ProbeContext, probeWindows } from './probe-context.js';
import { probeArticlesAndAnalyses, probeCompetitors, probeTemplates } from './probes/catalog.js';
import { probeConversationDates, probeConversationFilters } from './probes/conversations.js';
import { probeArrayFormat } from './probes/array-format.js';
import { probeCitations, probeDomainDetail, probeVisibilityFilters, probeVisibilityReport } from './probes/echo.js';
import { probeEchoMirror } from './probes/echo-mirror.js';
import { probeFanoutsByPhrase, probeFanoutsCited } from './probes/fanouts.js';
import { probeProductRanking, probeSwot } from './probes/ranking-swot.js';
import { probeTrackedUrls } from './probes/tracked-urls.js';
import type { RefusedNames } from './refused-names.js';
import { syncedReaders } from './synced-readers.js';
import { VerdictBook, type ParamVerdict } from './verdicts.js';
import type { Config } from '../../configuration.js';

/** Each endpoint's probe alone, with what it needs of the others, for trying a candidate name (name-search.ts). */
const ENDPOINT_PROBES: Readonly<Record<string, EndpointProbe>> = {
  [ENDPOINTS.visibility]: async (ctx) => probeVisibilityFilters(ctx, await probeVisibilityReport(ctx)),
  [ENDPOINTS.conversations]: async (ctx) => probeConversationFilters(ctx, await probeConversationDates(ctx)),
  [ENDPOINTS.competitors]: probeCompetitors,
  [ENDPOINTS.trackedUrls]: probeTrackedUrls,
  [ENDPOINTS.citations]: probeCitations,
  [ENDPOINTS.domainDetail]: probeDomainDetail,
  [ENDPOINTS.templates]: probeTemplates,
  [ENDPOINTS.articles]: probeArticlesAndAnalyses,
  [ENDPOINTS.contentAnalyses]: probeArticlesAndAnalyses,
  [ENDPOINTS.fanoutsCited]: probeFanoutsCited,
  [ENDPOINTS.fanoutsByPhrase]: async (ctx) => probeFanoutsByPhrase(ctx, await probeFanoutsCited(ctx)),
  [ENDPOINTS.productRanking]: probeProductRanking,
  [ENDPOINTS.swot]: probeSwot,
};

/**
 * Checks every query parameter bvsync sends, endpoint by endpoint, against one readable brand. The order matters:
 * earlier probes learn what later ones need (the days and engines of the answers, topics, domains, a tracked page).
 */
export async function probeParameters(
  client: ApiClient,
  config: Config,
  brand: number,
  lastDay: string,
  refused: RefusedNames,
  /** A client for a config with a candidate name, to search for the names found wrong (name-search.ts). */
  clientFor: (api: ApiConfig) => ApiClient,
): Promise<{ verdicts: ParamVerdict[]; assumptions: ProbeContext['assumptions']; proposals: NameProposal[] }> {
  const book = new VerdictBook(config.api.params, config.api.endpointParams);
  for (const endpoint of Object.values(ENDPOINTS)) book.declare(endpoint, SENT_PARAMS[endpoint]!);
  const ctx = new ProbeContext(endpointReads(client), brand, book, probeWindows(lastDay), config, refused);

  await probeEchoMirror(ctx, client);
  const unechoed = await probeVisibilityReport(ctx);
  const conversations = await probeConversationDates(ctx);
  await probeArrayFormat(ctx);
  await probeVisibilityFilters(ctx, unechoed);
  await probeCompetitors(ctx);
  await probeTrackedUrls(ctx);
  await probeCitations(ctx);
  await probeDomainDetail(ctx);
  await probeConversationFilters(ctx, conversations);
  await probeTemplates(ctx);
  await probeArticlesAndAnalyses(ctx);
  const searches = await probeFanoutsCited(ctx);
  await probeFanoutsByPhrase(ctx, searches);
  await probeProductRanking(ctx);
  await probeSwot(ctx);
  for (const { endpoint, rejects } of ctx.validation.unreadable()) {
    book.voidRecordEvidence(
      endpoint,
      `every record of this endpoint's answers (${rejects}) failed validation (see the line below), so they read as empty`,
    );
  }
  const readers = syncedReaders(config);
  ctx.assumptions.push(...ctx.validation.lines(readers));
  // Failed when a stream the config syncs reads the endpoint, else told of.
  const judge = (endpoint: string, failed: (synced: string) => string, told: string) => {
    const synced = readers(endpoint);
    ctx.addAssumption(!synced.length, synced.length ? failed(synced.join(', ')) : told);
  };
  for (const [endpoint, answer] of ctx.refusedEndpoints) {
    judge(
      endpoint,
      (synced) =>
        `${endpoint}: the key reads brand ${brand} but not this endpoint (${answer}); every slice of ${synced} would fail: take them out of sync.streams (and schedules), or have the account's plan include it`,
      `${endpoint}: the key may not read this endpoint (${answer}); no stream synced reads it`,
    );
  }
  for (const [endpoint, failure] of ctx.failedEndpoints) {
    if (ctx.answeredEndpoints.has(endpoint) || ctx.refusedEndpoints.has(endpoint)) continue;
    judge(
      endpoint,
      (synced) =>
        `${endpoint}: no request doctor sent was answered (the first: ${failure}); every slice of ${synced} would fail the same way: check api.url and the endpoint's path, or take them out of sync.streams (and schedules)`,
      `${endpoint}: no request doctor sent was answered (the first: ${failure}); no stream synced reads it`,
    );
  }
  for (const [endpoint, read] of ctx.unreadableReads) {
    judge(
      endpoint,
      (synced) =>
        `${endpoint}: the API answered ${read}; bvsync cannot read that, so every slice of ${synced} with more than one page would fail the same way`,
      `${endpoint}: the API answered ${read}; bvsync cannot read that, but no stream synced reads it`,
    );
  }
  const verdicts = book.list();
  const proposals = await searchNames(verdicts, { ctx, clientFor, probes: ENDPOINT_PROBES });
  return { verdicts, assumptions: ctx.assumptions, proposals };
}
