import { Command } from 'commander';
import { AUTO_START_RATE } from '../../api/rate/adaptive-rate.js';
import { RATE_HEADROOM } from '../../api/rate/rate-budget.js';
import { formatDecimal, formatDuration } from '../../format.js';
import { addCommonOptions, commandLogger, readConfig, withRedis, type CommonFlags } from '../context.js';
import { UsageError } from '../fail.js';
import { keyRateSettings, readKeyRate, resetKeyRate, statedText, type KeyRate } from './key-rate.js';
import { descriptionOf } from '../commands.js';

interface RateFlags extends CommonFlags {
  json?: boolean;
  reset?: boolean;
}

export function rateCommand(): Command {
  return addCommonOptions(
    new Command('rate')
      .description(descriptionOf('rate'))
      .option('--reset', 'forget the learned rate: the next request of every process runs at the configured rate')
      .option('--json', 'print it as one JSON object, for scripts and monitoring'),
  ).action(async (flags: RateFlags) => {
    const config = readConfig(flags);
    const log = commandLogger(flags);
    const settings = keyRateSettings(config);
    if (!settings)
      throw new UsageError('no API key configured (api.apiKey, or BVSYNC_API_KEY): the rate is learned per key');
    // The learned rate is in the Redis the runs share; a private redis-server started for this command holds none.
    await withRedis(config, log, { allowPrivate: false }, async (connection) => {
      if (!flags.reset) {
        const rate = await readKeyRate(connection, settings);
        process.stdout.write(flags.json ? `${JSON.stringify(rate, null, 2)}\n` : renderRate(rate));
        return;
      }
      const before = await readKeyRate(connection, settings);
      // Only the learned rate goes: the Retry-After block is the API's word, and the key's next free moment is at most one
      // spacing ahead, while deleting it would let new requests leave with those that already hold their moment.
      const removed = await resetKeyRate(connection, settings);
      const after = await readKeyRate(connection, settings);
      // `--json`: the rate after the reset, and what was removed (null when nothing was stored).
      const report = { ...after, removed: removed ? before.learned : null };
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderReset(removed, before, after));
    });
  });
}

function perSecond(rate: number): string {
  return `${formatDecimal(rate)}/s`;
}

function configuredText(rate: KeyRate): string {
  if (rate.configured === 'auto')
    return `auto (api.requestsPerSecond: starts at ${perSecond(AUTO_START_RATE)}, doubles every second until a 429; ceiling ${perSecond(rate.ceiling)})`;
  return `${perSecond(rate.configured)} (api.requestsPerSecond; reads pace at ${formatDecimal(RATE_HEADROOM * 100)} % of it: ${perSecond(rate.ceiling)})`;
}

/** The rate a key starts at when nothing is stored: the configured one, or auto's start. */
function startText(rate: KeyRate): string {
  return rate.configured === 'auto'
    ? `${perSecond(Math.min(AUTO_START_RATE, rate.ceiling))} (auto's start)`
    : `${perSecond(rate.ceiling)} (the configured rate)`;
}

function renderRate(rate: KeyRate): string {
  const rows: Array<[string, string]> = [['configured', configuredText(rate)]];
  rows.push([
    'stated',
    rate.stated ? statedText(rate.stated) : 'nothing (the API stated no limit in the headers of the runs stored)',
  ]);
  const learned = rate.learned;
  if (!learned) rows.push(['in force now', `${startText(rate)}: nothing learned is stored`]);
  else
    rows.push(
      ['in force now', `${perSecond(rate.rateNow)}, ${rate.rateSource}`],
      ['phase', learned.phase],
      ['estimated limit', learned.limit === null ? 'none (no 429 yet)' : perSecond(learned.limit)],
      ['confirmed', learned.confirmed ? 'yes (the climb above it takes a step every 5 minutes)' : 'no'],
      ['last cut', learned.lastCutAt ?? 'never'],
      [
        'expires',
        learned.expiresAt === null
          ? 'never (no expiry set)'
          : `${learned.expiresAt} (in ${formatDuration((Date.parse(learned.expiresAt) - Date.now()) / 1000)}, unless a 429 changes it first)`,
      ],
    );
  if (rate.heldBackMs > 0) rows.push(['held back', heldBackText(rate)]);
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  const lines = [
    `The API key's rate (Redis prefix ${rate.redisPrefix})`,
    ...rows.map(([name, value]) => `  ${name.padEnd(width)}${value}`),
  ];
  if (learned) lines.push(`bvsync rate --reset forgets it: the next request runs at ${startText(rate)}`);
  return `${lines.join('\n')}\n`;
}

function renderReset(removed: boolean, before: KeyRate, after: KeyRate): string {
  const lines: string[] = [];
  if (!removed) {
    lines.push(`nothing to reset: no learned rate is stored for the API key (Redis prefix ${after.redisPrefix})`);
  } else if (before.learned) {
    const { limit, confirmed, lastCutAt } = before.learned;
    const facts = [
      `${perSecond(before.rateNow)} in force`,
      limit === null ? 'no limit estimated' : `limit ${perSecond(limit)} estimated${confirmed ? ', confirmed' : ''}`,
      `last cut ${lastCutAt ?? 'never'}`,
    ];
    lines.push(`removed the learned rate of the API key (Redis prefix ${after.redisPrefix}): ${facts.join(', ')}`);
  } else {
    // Stored but unreadable: a budget would have written it afresh anyway.
    lines.push(`removed an unreadable rate state of the API key (Redis prefix ${after.redisPrefix})`);
  }
  lines.push(`the next request runs at ${startText(after)}`);
  if (after.heldBackMs > 0)
    lines.push(`the key stays held back ${heldBackText(after)}: --reset leaves the API's own block`);
  return `${lines.join('\n')}\n`;
}

function heldBackText(rate: KeyRate): string {
  return `${formatDuration(rate.heldBackMs / 1000)} more by the API's Retry-After`;
}
