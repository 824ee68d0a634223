import { hostname } from 'node:os';
import { PAYLOAD_VERSION, type Notice, type SchemaDriftNotice } from './notice.js';

/** Where a notice comes from, so a receiver serving several warehouses can tell them apart. */
export interface NoticeSource {
  /** The config's `redisPrefix`: one per warehouse. */
  prefix: string;
  /** The published DuckDB file. */
  db: string;
}

/** The `json` format: docs/operations.md, "Webhook payload". Stable: fields are added, never renamed, under one version. */
export function jsonPayload(notice: Notice, source: NoticeSource, at = new Date()): Record<string, unknown> {
  return {
    version: PAYLOAD_VERSION,
    ...notice,
    summary: summaryOf(notice),
    at: at.toISOString(),
    source: { host: hostname(), pid: process.pid, prefix: source.prefix, db: source.db },
  };
}

/** The `slack` format: Slack's incoming webhooks (and Mattermost, Teams' Slack-compatible ones) show `text`. */
export function slackPayload(notice: Notice, source: NoticeSource): { text: string } {
  const lines = [`*bvsync* (${source.prefix} on ${hostname()}): ${summaryOf(notice)}`];
  if (notice.event === 'run_failed' || notice.event === 'run_incomplete') {
    for (const error of notice.errors)
      lines.push(`• brand ${error.brand} ${error.stream} ${error.slice}: ${error.code ?? 'error'}: ${error.message}`);
    if (notice.run.error) lines.push(notice.run.error);
  }
  if (notice.event === 'stale') {
    for (const row of notice.stale.slice(0, 10))
      lines.push(
        `• brand ${row.brand} ${row.stream}: newest complete day ${row.newestCompleteDay} (${row.ageHours} h)`,
      );
  }
  if (notice.event === 'verify_disagreement') {
    for (const row of notice.disagreements.slice(0, 10)) lines.push(`• brand ${row.brand} ${row.family} ${row.day}`);
  }
  if (notice.event === 'schema_drift') {
    for (const row of notice.drift.slice(0, 10)) lines.push(`• ${driftLine(row)}`);
  }
  return { text: lines.join('\n') };
}

/** One sentence a person reads first. */
function summaryOf(notice: Notice): string {
  switch (notice.event) {
    case 'run_failed':
    case 'run_incomplete': {
      const { run, counts } = notice;
      return (
        `${run.kind} run ${run.id} ended ${run.status}: ${counts.failed} failed and ${counts.incomplete} incomplete of ${counts.slices} slices, ` +
        `${counts.rows} rows, ${counts.requests} requests`
      );
    }
    case 'stale':
      return `${notice.stale.length} brand and stream pairs have no complete day in the last ${notice.staleAfterHours} hours`;
    case 'key_refused':
      return `the API refused the API key (${notice.code}): ${notice.message}`;
    case 'machine_fault':
      return `machine fault (${notice.component}, ${notice.code}): ${notice.message}`;
    case 'verify_disagreement':
      return (
        `${notice.disagreements.length} brand, family and day triples still disagree with the API after a re-read ` +
        `(${notice.window.from}..${notice.window.to}); they are not re-read again: bvsync verify shows the figures`
      );
    case 'schema_drift':
      return `run ${notice.run.id} loaded ${notice.drift.length} thing(s) the API spec does not show: ${notice.drift.slice(0, 3).map(driftLine).join('; ')}`;
  }
}

function driftLine(row: SchemaDriftNotice['drift'][number]): string {
  if (row.kind === 'field')
    return `${row.table}: new field "${row.name}" in _extra (${row.rows} rows, looks like ${row.looksLike ?? 'JSON'})`;
  return `${row.table}.${row.name}: ${row.kind === 'engine' ? 'new engine' : 'value outside the spec'} "${row.value}" (${row.rows} rows)`;
}
