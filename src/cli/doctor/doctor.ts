import { Command } from 'commander';
import { CONFIG_OPTION, commandToday, todayFrom } from '../context.js';
import { createApiClient } from '../../api/client.js';
import { ConfigError, configFilePath } from '../../config/load.js';
import { addDays } from '../../days.js';
import type { ApiConfig } from '../../config/schema.js';
import { fixConfigFile, mergedSettings } from './config-fix.js';
import { proposalText, proposedSettings } from './name-search.js';
import { redactSecrets } from '../../log.js';
import { probeApiConfig } from '../brand-access-probe.js';
import {
  checkApiAndBrands,
  checkDiskRoom,
  checkMemoryLimit,
  checkEvictionPolicy,
  checkRedis,
  checkRequired,
  checkSchemaDrift,
  checkWarehouse,
  type DoctorCheck,
} from './checks.js';
import { endpointNameOf } from './endpoints.js';
import { probeParameters } from './param-probes.js';
import { MAX_PROBE_REQUESTS } from './probe-context.js';
import { probeProgress, type ProbeProgress } from './probe-progress.js';
import { RefusedNames } from './refused-names.js';
import { syncedParams } from './synced-params.js';
import { verifiedElsewhere, type ParamVerdict } from './verdicts.js';
import { loadConfig, type Config } from '../../configuration.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';
import { descriptionOf } from '../commands.js';
import { textTable } from '../../text-table.js';

export type { ParamVerdict } from './verdicts.js';

export interface DoctorOptions {
  /** Config file path; default as `loadConfig` finds it. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Receives each check as it completes; default: print it. */
  report?: (check: DoctorCheck) => void;
  /** Receives the parameter table and the requests it took; default: print it. */
  reportParams?: (rows: ParamVerdict[], requests: number) => void;
  /** The day after the probes' week (YYYY-MM-DD, UTC): they read the seven days before it; default the real today. */
  today?: string;
  /** Told of the parameter probes' requests as they go; default a line on stderr (probe-progress.ts). */
  progress?: (brand: number) => ProbeProgress;
  /** Write the names found into the config file (`--fix`); default false. */
  fix?: boolean;
}

export interface DoctorResult {
  checks: DoctorCheck[];
  /** One row per endpoint and query parameter; empty when the checks before it failed. */
  params: ParamVerdict[];
}

export function doctorCommand(): Command {
  return new Command('doctor')
    .description(descriptionOf('doctor'))
    .option(CONFIG_OPTION.flags, CONFIG_OPTION.description)
    .option(
      '--today <YYYY-MM-DD>',
      "the UTC day to treat as today: the probes read the week before it (default: the real one; for an API whose data ends earlier, such as the tour's simulator)",
    )
    .option(
      '--fix',
      'write the parameter names found into the config file (api.params, api.endpointParams), showing the change',
    )
    .action(async (flags: { config?: string; today?: string; fix?: boolean }) => {
      const { checks } = await runDoctor({
        configPath: flags.config,
        today: todayFrom(flags),
        fix: flags.fix === true,
      });
      const failed = checks.filter((c) => !c.ok).length;
      process.stdout.write(failed ? `\n${failed} check${failed > 1 ? 's' : ''} failed\n` : '\nall checks passed\n');
      if (failed) process.exitCode = EXIT_NOT_DONE;
    });
}

/**
 * Runs every check in order; a check that cannot run because an earlier one failed is skipped. The parameter
 * probes add one check, failed when any parameter name is wrong.
 */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorResult> {
  const result: DoctorResult = { checks: [], params: [] };
  let requests = 0;
  const report =
    options.report ??
    ((c: DoctorCheck) =>
      process.stdout.write(`${c.ok ? (c.warning ? 'warn' : 'ok  ') : 'FAIL'}  ${redactSecrets(c.line)}\n`));
  const push = (check: DoctorCheck) => {
    result.checks.push(check);
    report(check);
  };
  const add = (ok: boolean, line: string) => {
    push({ ok, line });
    return ok;
  };

  let config: Config;
  try {
    config = loadConfig({ path: options.configPath, env: options.env });
  } catch (error) {
    add(false, `config: ${error instanceof ConfigError ? error.message : String(error)}`);
    return result;
  }
  const complete = checkRequired(config, add);
  if (await checkRedis(config, add)) {
    await checkWarehouse(config, add);
    await checkEvictionPolicy(config, push);
  }
  await checkDiskRoom(config, push);
  checkMemoryLimit(config, push);
  await checkSchemaDrift(config, push);
  if (!complete) return result;

  let progress: ProbeProgress | undefined;
  const refused = new RefusedNames();
  const dispatcher = refused.dispatcher({ ...config.api, url: config.api.url! });
  const clientFor = (api: ApiConfig) =>
    createApiClient(
      { ...api, maxAttempts: Math.min(api.maxAttempts, 3) },
      {
        retryRateLimited: true,
        dispatcher,
        onRequest: (event) => {
          progress?.sent(++requests);
          if (event.outcome === 'rate_limited' && event.retryAfterMs) progress?.rateLimited(event.retryAfterMs);
        },
      },
    );
  const client = clientFor(config.api);
  try {
    // The API and the brands are asked as the preflight asks them, each wait bounded: an API that never answers is named
    // within seconds, not after every try's api.headersTimeoutMs.
    const accessClient = createApiClient(probeApiConfig(config.api), {
      retryRateLimited: true,
      dispatcher,
      onRequest: () => ++requests,
    });
    const readable = await checkApiAndBrands(accessClient, config, add).finally(() => accessClient.close());
    const brand = readable[0];
    if (brand === undefined) {
      add(false, 'parameter names: not checked, no brand is readable');
      return result;
    }
    const today = options.today ?? commandToday();
    const shown = (options.progress ?? ((probed) => probeProgress(process.stderr, probed)))(brand);
    progress = shown;
    const probed = await probeParameters(client, config, brand, addDays(today, -1), refused, clientFor).finally(() => {
      shown.end();
      progress = undefined;
    });
    result.params = probed.verdicts;
    const printParams =
      options.reportParams ??
      ((rows: ParamVerdict[], sent: number) =>
        process.stdout.write(
          `\nquery parameters of brand ${brand} (${sent} requests with retries; the probes ask at most ${MAX_PROBE_REQUESTS}):\n${paramTable(rows)}\n\n`,
        ));
    printParams(result.params, requests);
    const found = proposedSettings(probed.proposals);
    if (probed.proposals.length)
      process.stdout.write(`${proposalText(probed.proposals, mergedSettings(config.api, found), options.fix)}\n\n`);
    if (options.fix) {
      if (!found.params && !found.endpointParams)
        add(true, 'doctor --fix: no parameter name was found to write; the config file is as it was');
      else {
        const fixed = fixConfigFile(configFilePath({ path: options.configPath, env: options.env }), found);
        if (!fixed.ok) add(false, `doctor --fix: ${fixed.why}`);
        else {
          // The diff may hold lines beside the names, the file's api.apiKey among them.
          process.stdout.write(`${redactSecrets(`doctor --fix changed ${fixed.file}:\n${fixed.diff}`)}\n\n`);
          add(true, `doctor --fix: wrote the names found into ${fixed.file}; run bvsync doctor again to check them`);
        }
      }
    }
    const synced = await syncedParams(config, [addDays(today, -2), addDays(today, -1)]);
    const sentBySync = (row: ParamVerdict) => synced.get(endpointNameOf(row.endpoint))?.has(row.param) === true;
    const wrong = result.params.filter((row) => row.verdict === 'wrong' && sentBySync(row));
    const wrongUnsent = result.params.filter((row) => row.verdict === 'wrong' && !sentBySync(row));
    const summary = `${verdictCounts(result.params)} (${requests} requests)`;
    if (wrong.length) {
      add(
        false,
        `parameter names: ${summary}; wrong: ${listed(wrong)}; set api.params${endpointAdvice(result.params, wrong)} (see docs/doctor.md, "A name right on one endpoint and wrong on another")`,
      );
    } else {
      add(true, `parameter names: ${summary}`);
    }
    if (wrongUnsent.length) {
      add(
        true,
        `parameter names a sync of sync.streams does not send: wrong, and costing a run nothing: ${listed(wrongUnsent)}`,
      );
    }
    for (const assumption of probed.assumptions) add(assumption.ok, assumption.line);
  } finally {
    await client.close();
    await dispatcher.close();
  }
  return result;
}

/** Wrong names of the table, the first eight of them spelt out. */
function listed(wrong: readonly ParamVerdict[]): string {
  const shown = wrong.slice(0, 8).map((row) => `${row.param} as "${row.wire}" on ${row.endpoint}`);
  return wrong.length > shown.length
    ? `${shown.join(', ')} and ${wrong.length - shown.length} more (see the table)`
    : shown.join(', ');
}

/**
 * A name wrong on one endpoint and verified under the same wire name on another: `api.params` cannot serve both (the
 * spec shows the names per endpoint), so the wrong endpoint gets a name of its own in `api.endpointParams`.
 */
function endpointAdvice(rows: readonly ParamVerdict[], wrong: readonly ParamVerdict[]): string {
  const split = wrong.filter((row) => verifiedElsewhere(rows, row));
  if (split.length === 0) return '';
  const shown = split.slice(0, 3).map((row) => `api.endpointParams["${endpointNameOf(row.endpoint)}"].${row.param}`);
  return `; ${split.length === 1 ? 'one name is' : 'names are'} right on other endpoints, so set ${shown.join(', ')}${split.length > shown.length ? ' and the rest (see the table)' : ''} to the endpoint's own name instead`;
}

/** The parameter table as the terminal shows it: one row per endpoint and parameter. */
function paramTable(rows: readonly ParamVerdict[]): string {
  const table = textTable(['endpoint', 'parameter', 'wire name', 'verdict', 'why']);
  for (const row of rows) table.push([row.endpoint, row.param, row.wire, row.verdict, redactSecrets(row.why)]);
  return table.toString();
}

function verdictCounts(rows: readonly ParamVerdict[]): string {
  const count = (verdict: ParamVerdict['verdict']) => rows.filter((r) => r.verdict === verdict).length;
  return `${count('verified')} verified, ${count('wrong')} wrong, ${count('cannot be checked')} cannot be checked`;
}
