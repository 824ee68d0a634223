import type { ApiClient } from '../../api/client.js';
import type { ParamMapping } from '../../api/param-names.js';
import type { ApiConfig } from '../../config/schema.js';
import type { ParamName } from '../../streams/registry.js';
import { endpointReads } from '../endpoint-reads.js';
import type { NameSettings } from './config-fix.js';
import { SENT_PARAMS, endpointNameOf } from './endpoints.js';
import { nameCandidates } from './name-candidates.js';
import { MAX_PROBE_REQUESTS, ProbeContext } from './probe-context.js';
import { VerdictBook, verifiedElsewhere, type ParamVerdict } from './verdicts.js';

/** What the search found for one parameter: the name verified, or the names tried without one. */
export interface NameProposal {
  endpoint: string;
  param: ParamName;
  /** The name sent, found wrong (or not checkable). */
  wire: string;
  /** The name verified by the same evidence as the table's, with that evidence. */
  found?: { name: string; why: string };
  /** The names tried, in order. */
  tried: string[];
  /** Why the search stopped before trying every candidate (the request cap). */
  stopped?: string;
  /** Where the name goes: `params` for every endpoint, or `endpointParams` for this endpoint alone. */
  scope: 'params' | 'endpointParams';
}

/** One endpoint's probe alone (param-probes.ts), run again with a candidate name. */
export type EndpointProbe = (ctx: ProbeContext) => Promise<unknown>;

export interface NameSearchOptions {
  /** The probes' context: its facts, windows, config and request count, which the search goes on spending. */
  ctx: ProbeContext;
  /** A client for a config with a candidate name, on doctor's connection pool. */
  clientFor: (api: ApiConfig) => ApiClient;
  probes: Readonly<Record<string, EndpointProbe>>;
}

/**
 * Rows worth a search: names found wrong, and names a lenient API accepts even with an invalid value, which the
 * tiebreak could not judge (probe-context.ts, `tiebreak`).
 */
function searchable(row: ParamVerdict): boolean {
  return row.verdict === 'wrong' || (row.verdict === 'cannot be checked' && /accepts even /.test(row.why));
}

/**
 * Tries the candidates of each searchable row (name-candidates.ts) by running that endpoint's probe again under each
 * name: the first the probe verifies is found. Stops there, or when doctor's request cap is spent.
 */
export async function searchNames(rows: readonly ParamVerdict[], options: NameSearchOptions): Promise<NameProposal[]> {
  const { ctx } = options;
  const { config } = ctx;
  const proposals: NameProposal[] = [];
  for (const row of rows.filter(searchable)) {
    const probe = options.probes[row.endpoint];
    if (!probe) continue;
    const taken = new Set(
      (SENT_PARAMS[row.endpoint] ?? [])
        .filter((param) => param !== row.param)
        .map((param) => ctx.book.wire(param, row.endpoint)),
    );
    // A name found for the same parameter on another endpoint goes first: APIs name a meaning alike across endpoints.
    const foundElsewhere = proposals.flatMap((other) =>
      other.param === row.param && other.found ? [other.found.name] : [],
    );
    const candidates = nameCandidates(row.param, row.wire, taken, [
      ...foundElsewhere,
      ...(ctx.listedNames.get(row.endpoint) ?? []),
    ]);
    // A name right elsewhere under the same wire name must stay so there: this endpoint gets a name of its own.
    const scope =
      verifiedElsewhere(rows, row) || config.api.endpointParams[endpointNameOf(row.endpoint)]?.[row.param] !== undefined
        ? 'endpointParams'
        : 'params';
    const proposal: NameProposal = { endpoint: row.endpoint, param: row.param, wire: row.wire, tried: [], scope };
    proposals.push(proposal);
    for (const candidate of candidates) {
      if (ctx.requests >= MAX_PROBE_REQUESTS) {
        proposal.stopped = `doctor's cap of ${MAX_PROBE_REQUESTS} requests is spent`;
        break;
      }
      proposal.tried.push(candidate);
      const verdict = await trial(options, row.endpoint, row.param, candidate, probe);
      if (verdict?.verdict === 'verified') {
        proposal.found = { name: candidate, why: verdict.why };
        break;
      }
    }
  }
  return proposals;
}

/** Runs the endpoint's probe with `candidate` as the name of `param` there; the row it gives that parameter. */
async function trial(
  options: NameSearchOptions,
  endpoint: string,
  param: ParamName,
  candidate: string,
  probe: EndpointProbe,
): Promise<ParamVerdict | undefined> {
  const { ctx } = options;
  const { config } = ctx;
  const name = endpointNameOf(endpoint);
  const endpointParams = {
    ...config.api.endpointParams,
    [name]: { ...config.api.endpointParams[name], [param]: candidate } as ParamMapping,
  };
  const api = { ...config.api, endpointParams } as ApiConfig;
  const client = options.clientFor(api);
  try {
    const book = new VerdictBook(api.params, api.endpointParams);
    book.declare(endpoint, SENT_PARAMS[endpoint] ?? []);
    const trialCtx = new ProbeContext(
      endpointReads(client),
      ctx.brand,
      book,
      ctx.windows,
      { ...config, api },
      ctx.refused,
    );
    Object.assign(trialCtx.facts, ctx.facts);
    trialCtx.echoMirrors = ctx.echoMirrors;
    trialCtx.requests = ctx.requests;
    try {
      await probe(trialCtx);
    } finally {
      ctx.requests = trialCtx.requests;
    }
    return book.list().find((row) => row.endpoint === endpoint && row.param === param);
  } finally {
    await client.close();
  }
}

/** The `api` settings that hold the names found, as JSON to paste into the config file. */
export function proposedSettings(proposals: readonly NameProposal[]): NameSettings {
  const params: Record<string, string> = {};
  const endpointParams: Record<string, Record<string, string>> = {};
  for (const proposal of proposals) {
    if (!proposal.found) continue;
    if (proposal.scope === 'params') params[proposal.param] = proposal.found.name;
    else (endpointParams[endpointNameOf(proposal.endpoint)] ??= {})[proposal.param] = proposal.found.name;
  }
  return {
    ...(Object.keys(params).length ? { params } : {}),
    ...(Object.keys(endpointParams).length ? { endpointParams } : {}),
  };
}

/** The config setting that holds a proposal's name: for every endpoint, or for its endpoint alone. */
function settingOf(proposal: NameProposal): string {
  return proposal.scope === 'params'
    ? `api.params.${proposal.param}`
    : `api.endpointParams.${endpointNameOf(proposal.endpoint)}.${proposal.param}`;
}

/**
 * What doctor says of the names it searched for: each one verified, or the names tried without one, then the settings
 * to paste whole into the config file's `api` (the names already there kept).
 */
export function proposalText(proposals: readonly NameProposal[], settings: NameSettings, fixing = false): string {
  const lines = ['names tried for the parameters above (within the same request cap):'];
  for (const proposal of proposals) {
    const where = `${proposal.endpoint} ${proposal.param} (sent as "${proposal.wire}")`;
    if (proposal.found) lines.push(`  ${where}: "${proposal.found.name}" is right: ${proposal.found.why}`);
    else {
      const tried = proposal.tried.length
        ? `none of ${proposal.tried.map((name) => `"${name}"`).join(', ')} is right`
        : 'no name was tried';
      lines.push(
        `  ${where}: ${tried}${proposal.stopped ? ` (${proposal.stopped})` : ''}; find its name in the API's documentation and set ${settingOf(proposal)}`,
      );
    }
  }
  const entries = Object.entries(settings);
  if (entries.length) {
    lines.push(
      fixing
        ? 'doctor --fix writes these into "api" of the config file, replacing what is there:'
        : 'set these in "api" of the config file, replacing what is there (or run bvsync doctor --fix to write them):',
    );
    for (const [key, value] of entries) lines.push(`  "${key}": ${JSON.stringify(value)}`);
  }
  return lines.join('\n');
}
