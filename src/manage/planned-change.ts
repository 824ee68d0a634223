import type {
  CompetitorItem,
  PersonaChange,
  TagChange,
  TopicItem,
  TrackUrlItem,
  TrackedUrlChange,
} from '../api/writes/writes.js';

/** What a desired-state item is, as plans and reports name it. */
export type ItemKind = 'tracked URL' | 'topic' | 'competitor' | 'persona' | 'tag';

/**
 * What `plan` found for one item: create, change, restore; `unchanged` (the brand has it); `rejected`, with the API's
 * code and message; or `send`, with no read endpoint to compare against (personas, tags), sent as given on every apply.
 */
export type PlannedAction = 'create' | 'change' | 'restore' | 'send' | 'unchanged' | 'rejected';

/** Why a persona or tag change is sent on every apply, as plan and apply say it. */
export const NO_READ_TO_COMPARE = 'no read endpoint to compare';

/** The write that brings one item to its desired state. */
export type PendingWrite =
  | { type: 'track-url'; groupId: number | undefined; item: TrackUrlItem }
  | { type: 'update-tracked-url'; trackedUrlId: number; change: TrackedUrlChange }
  | { type: 'create-topic'; item: TopicItem }
  | { type: 'restore-topic'; topicId: number }
  | { type: 'create-competitor'; item: CompetitorItem }
  | { type: 'update-persona'; personaId: number; change: PersonaChange }
  | { type: 'update-tag'; tagId: number; change: TagChange };

export interface PlannedChange {
  kind: ItemKind;
  /** The item as the file names it: an address, a topic's name, a competitor's name, `persona 12`. */
  label: string;
  action: PlannedAction;
  /** What changes, why it is unchanged, or why it was rejected. */
  detail?: string | undefined;
  /** The API's rejection code, for `rejected`. */
  code?: string | undefined;
  /** Absent for `unchanged` and `rejected`. */
  write?: PendingWrite | undefined;
}

/** The plan of one brand: every item of the file, in the file's order within each kind. */
export interface ChangePlan {
  brandId: number;
  changes: PlannedChange[];
}

/** How many items of each action a plan or report holds. */
export function countActions<T extends { action: string }>(items: readonly T[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item.action] = (counts[item.action] ?? 0) + 1;
  return counts;
}
