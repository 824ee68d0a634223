import type { AppliedChange } from './apply-plan.js';
import { countActions, NO_READ_TO_COMPARE, type ChangePlan, type PlannedChange } from './planned-change.js';

const KIND_WIDTH = 'tracked URL'.length;

/** One line per item: its action, kind, label and detail, in columns that line up. */
export function changeLine(change: PlannedChange | AppliedChange): string {
  const id = 'id' in change && change.id !== undefined ? ` (id ${change.id})` : '';
  return `  ${change.action.padEnd(10)} ${change.kind.padEnd(KIND_WIDTH)}  ${change.label}${id}${change.detail ? `: ${change.detail}` : ''}`;
}

/** The heading of a plan: the count of each action, the same words as its lines; `plan` adds that it wrote nothing. */
export function planSummary(plan: ChangePlan, source: string, note = ' (nothing written)'): string {
  const counts = countActions(plan.changes);
  const parts = [
    ...['create', 'change', 'restore'].map((action) => `${counts[action] ?? 0} to ${action}`),
    ...['rejected', 'unchanged'].map((action) => `${counts[action] ?? 0} ${action}`),
  ];
  if (counts.send) parts.push(`${counts.send} to send as given (${NO_READ_TO_COMPARE})`);
  return `plan of brand ${plan.brandId} from ${source}: ${parts.join(', ')}${note}`;
}

/** The last line of an apply. */
export function applySummary(brandId: number, outcomes: readonly AppliedChange[]): string {
  const counts = countActions(outcomes);
  const parts = ['created', 'changed', 'restored', 'rejected', 'unchanged'].map(
    (action) => `${counts[action] ?? 0} ${action}`,
  );
  if (counts['sent again']) parts.push(`${counts['sent again']} sent again (${NO_READ_TO_COMPARE})`);
  return `applied to brand ${brandId}: ${parts.join(', ')}`;
}
