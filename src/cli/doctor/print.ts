import { redactSecrets } from '../../log.js';
import { textTable } from '../../text-table.js';
import type { ParamVerdict } from './verdicts.js';

/** The parameter table as the terminal shows it: one row per endpoint and parameter. */
export function paramTable(rows: readonly ParamVerdict[]): string {
  const table = textTable(['endpoint', 'parameter', 'wire name', 'verdict', 'why']);
  for (const row of rows) table.push([row.endpoint, row.param, row.wire, row.verdict, redactSecrets(row.why)]);
  return table.toString();
}

export function verdictCounts(rows: readonly ParamVerdict[]): string {
  const count = (verdict: ParamVerdict['verdict']) => rows.filter((r) => r.verdict === verdict).length;
  return `${count('verified')} verified, ${count('wrong')} wrong, ${count('cannot be checked')} cannot be checked`;
}
