import type { BulkAnswer, BulkRejection } from '../api/writes/write-schemas.js';
import { COMPETITORS_PER_REQUEST, TOPICS_PER_REQUEST, TRACK_URLS_PER_REQUEST } from '../api/writes/writes.js';
import type { TopicItem, WriteClient } from '../api/writes/writes.js';
import { addressNormalForm, competitorKey } from './address-normal-form.js';
import { batches, groupBy } from '../group-by.js';
import { itemsOf } from './batches.js';
import type { DesiredState, TopicEntry, TrackedUrlEntry } from './desired-state-schema.js';
import { NO_READ_TO_COMPARE, type ChangePlan, type PendingWrite, type PlannedChange } from './planned-change.js';
import type { SeenTopic } from './warehouse-topics.js';

export interface MakePlanOptions {
  /** Topics the warehouse has seen, by name: a topic to create that has one gets a hint of the id to restore. */
  seenTopics?: Map<string, SeenTopic[]> | undefined;
}

/**
 * What brings a brand to its desired state, found without writing: pages and competitors are read (endpoints 3, 7) and
 * compared, then creates are sent with `dry_run: true` so the API says what it rejects. Personas and tags go as given.
 */
export async function makePlan(
  client: WriteClient,
  desired: DesiredState,
  options: MakePlanOptions = {},
): Promise<ChangePlan> {
  const brandId = desired.brand;
  const changes: PlannedChange[] = [
    ...(await planTrackedUrls(client, brandId, desired.trackedUrls)),
    ...(await planTopics(client, brandId, desired.topics, options.seenTopics)),
    ...(await planCompetitors(client, brandId, desired.competitors)),
    ...desired.personas.map(({ id, ...change }) =>
      sendAsGiven('persona', id, change, { type: 'update-persona', personaId: id, change }),
    ),
    ...desired.tags.map(({ id, ...change }) =>
      sendAsGiven('tag', id, change, { type: 'update-tag', tagId: id, change }),
    ),
  ];
  return { brandId, changes };
}

async function planTrackedUrls(
  client: WriteClient,
  brandId: number,
  entries: TrackedUrlEntry[],
): Promise<PlannedChange[]> {
  if (entries.length === 0) return [];
  const tracked = new Map(
    (await client.trackedPages(brandId)).map((page) => [addressNormalForm(page.url) ?? page.url, page]),
  );
  const changes: PlannedChange[] = [];
  const creates: Array<{ change: PlannedChange; write: Extract<PendingWrite, { type: 'track-url' }> }> = [];
  for (const entry of entries) {
    const page = tracked.get(addressNormalForm(entry.url)!);
    if (!page) {
      const write = {
        type: 'track-url',
        groupId: entry.group ?? undefined,
        item: { url: entry.url, ...(entry.title === undefined ? {} : { title: entry.title }) },
      } as const;
      const change: PlannedChange = {
        kind: 'tracked URL',
        label: entry.url,
        action: 'create',
        detail: `${entry.title === undefined ? "the page's own title" : `title "${entry.title}"`}${typeof entry.group === 'number' ? `, group ${entry.group}` : ''}`,
        write,
      };
      changes.push(change);
      creates.push({ change, write });
      continue;
    }
    const differences: string[] = [];
    const update: { title?: string; group_id?: number | null } = {};
    if (entry.title !== undefined && entry.title !== page.title) {
      differences.push(`title "${page.title ?? ''}" -> "${entry.title}"`);
      update.title = entry.title;
    }
    if (entry.group !== undefined && entry.group !== (page.groupId ?? null)) {
      differences.push(`group ${page.groupId ?? 'none'} -> ${entry.group ?? 'none'}`);
      update.group_id = entry.group;
    }
    const write = { type: 'update-tracked-url', trackedUrlId: page.id, change: update } as const;
    changes.push({
      kind: 'tracked URL',
      label: entry.url,
      ...(differences.length
        ? { action: 'change', detail: differences.join(', '), write }
        : { action: 'unchanged', detail: `tracked as ${page.url} (id ${page.id})` }),
    });
  }
  // The group is one field of the whole request (endpoint 1), so each group is its own run of requests.
  for (const [groupId, group] of groupBy(creates, ({ write }) => write.groupId)) {
    for (const batch of batches(group, TRACK_URLS_PER_REQUEST)) {
      const answer = await client.trackUrls(brandId, itemsOf(batch), groupId, { dryRun: true });
      markRejected(batch, answer);
    }
  }
  return changes;
}

function topicItem(entry: TopicEntry): TopicItem {
  return {
    name: entry.name,
    type: entry.type,
    language: entry.language,
    status: entry.status,
    answer_engines: entry.engines,
    ...(entry.persona === undefined ? {} : { persona_id: entry.persona }),
    scenarios: entry.scenarios,
  };
}

async function planTopics(
  client: WriteClient,
  brandId: number,
  entries: TopicEntry[],
  seenTopics: MakePlanOptions['seenTopics'],
): Promise<PlannedChange[]> {
  const changes = entries.map((entry): PlannedChange => {
    const label = `${entry.name} (${entry.type}, ${entry.language})`;
    if (entry.restore !== undefined) {
      return {
        kind: 'topic',
        label,
        action: 'restore',
        detail: `deleted topic ${entry.restore} comes back with its scenarios (restore has no dry run: checked when applied)`,
        write: { type: 'restore-topic', topicId: entry.restore },
      };
    }
    const scenarios = entry.scenarios.length;
    // The API cannot tell whether a topic is deleted, so a topic of this name that the warehouse saw is named, not restored.
    const seen = seenTopics?.get(entry.name) ?? [];
    const hint = seen.length
      ? `; the warehouse saw topic ${seen.map((topic) => `${topic.id}${topic.lastSeenDay ? ` (last on ${topic.lastSeenDay})` : ''}`).join(', ')} of this name: if it is deleted, add restore: ID to bring it back with its history`
      : '';
    return {
      kind: 'topic',
      label,
      action: 'create',
      detail: `${scenarios} scenario${scenarios === 1 ? '' : 's'}${hint}`,
      write: { type: 'create-topic', item: topicItem(entry) },
    };
  });
  // Restores go through the dry run too: a topic of the same name, type and language that runs means none is deleted.
  const sent = changes.map((change, index) => ({ change, item: topicItem(entries[index]!) }));
  for (const batch of batches(sent, TOPICS_PER_REQUEST)) {
    const items = batch.map(({ item }) => item);
    const answer = await client.createTopics(brandId, items, { dryRun: true });
    markRejected(batch, answer, (change, rejection) => {
      if (rejection.code !== 'conflict') return false;
      // A conflict is the brand already having this topic: the desired state holds.
      Object.assign(change, {
        action: 'unchanged',
        write: undefined,
        detail:
          'the brand has a topic of this name, type and language (its scenarios cannot be compared: the API has no read of topics)',
      });
      return true;
    });
  }
  return changes;
}

async function planCompetitors(
  client: WriteClient,
  brandId: number,
  entries: DesiredState['competitors'],
): Promise<PlannedChange[]> {
  if (entries.length === 0) return [];
  const known = new Map(
    (await client.competitors(brandId)).map((competitor) => [competitorKey(competitor.name), competitor]),
  );
  const changes: PlannedChange[] = [];
  const creates: Array<{ change: PlannedChange; write: Extract<PendingWrite, { type: 'create-competitor' }> }> = [];
  for (const entry of entries) {
    const competitor = known.get(competitorKey(entry.name));
    if (competitor?.tracked) {
      const website =
        competitor.website !== undefined && competitor.website !== entry.website
          ? `; its website stays ${competitor.website} (the API has no change of competitors)`
          : '';
      changes.push({
        kind: 'competitor',
        label: entry.name,
        action: 'unchanged',
        detail: `tracked as ${competitor.name} (id ${competitor.id})${website}`,
      });
      continue;
    }
    const write = { type: 'create-competitor', item: { name: entry.name, website: entry.website } } as const;
    const change: PlannedChange = {
      kind: 'competitor',
      label: entry.name,
      action: 'create',
      detail: competitor
        ? `tracks the platform's suggestion ${competitor.name} (id ${competitor.id}), with its history`
        : `website ${entry.website}`,
      write,
    };
    changes.push(change);
    creates.push({ change, write });
  }
  for (const batch of batches(creates, COMPETITORS_PER_REQUEST)) {
    const answer = await client.createCompetitors(brandId, itemsOf(batch), { dryRun: true });
    markRejected(batch, answer);
  }
  return changes;
}

/**
 * Marks the items of one request that the API rejected (`rejected[].index` is the position in the request). `special`
 * may take a rejection over, as topics do with conflict.
 */
function markRejected(
  sent: ReadonlyArray<{ change: PlannedChange }>,
  answer: BulkAnswer<unknown>,
  special: (change: PlannedChange, rejection: BulkRejection) => boolean = () => false,
): void {
  for (const rejection of answer.rejected) {
    const change = sent[rejection.index]?.change;
    if (!change || special(change, rejection)) continue;
    Object.assign(change, {
      action: 'rejected',
      code: rejection.code,
      detail: `${rejection.code}: ${rejection.message ?? 'no message'}`,
      write: undefined,
    });
  }
}

/** A persona's or tag's change, planned to be sent as given: the API has no read of them to compare it with. */
function sendAsGiven(
  kind: 'persona' | 'tag',
  id: number,
  change: Record<string, unknown>,
  write: PendingWrite,
): PlannedChange {
  const fields = Object.entries(change)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${typeof value === 'string' ? `"${value}"` : JSON.stringify(value)}`);
  return {
    kind,
    label: `${kind} ${id}`,
    action: 'send',
    detail: `${fields.join(', ')} (${NO_READ_TO_COMPARE})`,
    write,
  };
}
