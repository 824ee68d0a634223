import { ApiError, ValidationError } from '../api/errors.js';
import { WriteAnswerError } from '../api/writes/write-answer-error.js';
import type { BulkAnswer } from '../api/writes/write-schemas.js';
import { COMPETITORS_PER_REQUEST, TOPICS_PER_REQUEST, TRACK_URLS_PER_REQUEST } from '../api/writes/writes.js';
import type { WriteClient } from '../api/writes/writes.js';
import { batches, groupBy } from '../group-by.js';
import { itemsOf } from './batches.js';
import { addressKey, competitorNameKey, idsOfWritten, misplaced, topicNameKey } from './bulk-answer-items.js';
import type { ChangePlan, PendingWrite, PlannedChange } from './planned-change.js';

/**
 * What became of one item of the file in an apply. `sent again`: a change with no read endpoint to compare against
 * (personas, tags), sent whether or not the brand already had it, so not reported `changed`.
 */
export type AppliedAction = 'created' | 'changed' | 'restored' | 'sent again' | 'unchanged' | 'rejected';

export interface AppliedChange extends Pick<PlannedChange, 'kind' | 'label' | 'detail' | 'code'> {
  action: AppliedAction;
  /** The id the API gave or kept, when it answered one. */
  id?: number | undefined;
}

export interface ApplyOptions {
  /** Hears each item once its outcome is known (the rejections of the plan first, then each write as it is answered). */
  onItem?: (change: AppliedChange) => void;
  /** Hears one line per request sent, e.g. `tracked URLs: request 1 of 3: 200 written, 0 rejected`. */
  onRequest?: (line: string) => void;
}

/** Status codes of a single-item write that are that item's own rejection, not a failure of the apply. */
const ITEM_REJECTION_STATUSES = new Set([400, 404, 409, 422]);

/**
 * Sends the items to write (not unchanged or rejected ones) in batches within the spec's limits, each with an
 * idempotency value of its content. A failed request ends the apply; a re-run plans anew, so none is written twice.
 */
export async function applyPlan(
  client: WriteClient,
  plan: ChangePlan,
  options: ApplyOptions = {},
): Promise<AppliedChange[]> {
  const outcomes: AppliedChange[] = [];
  const settle = (change: PlannedChange, outcome: Omit<AppliedChange, 'kind' | 'label'>) => {
    const applied = { kind: change.kind, label: change.label, ...outcome };
    outcomes.push(applied);
    options.onItem?.(applied);
  };
  for (const change of plan.changes) {
    if (change.action === 'unchanged') settle(change, { action: 'unchanged', detail: change.detail });
    if (change.action === 'rejected') settle(change, { action: 'rejected', code: change.code, detail: change.detail });
  }
  const brandId = plan.brandId;

  const urlGroups = groupBy(pending(plan, 'track-url'), ({ write }) => write.groupId);
  const urlRequests = [...urlGroups.values()].flatMap((group) => batches(group, TRACK_URLS_PER_REQUEST));
  await bulkWrites(
    'tracked URLs',
    urlRequests,
    (batch) => client.trackUrls(brandId, itemsOf(batch), batch[0]!.write.groupId, { dryRun: false }),
    ({ write }) => addressKey(write.item.url),
    (written) => addressKey(written.url),
  );
  for (const { change, write } of pending(plan, 'update-tracked-url')) {
    await single(change, 'changed', () => client.updateTrackedUrl(brandId, write.trackedUrlId, write.change));
  }
  await bulkWrites(
    'topics',
    batches(pending(plan, 'create-topic'), TOPICS_PER_REQUEST),
    (batch) => client.createTopics(brandId, itemsOf(batch), { dryRun: false }),
    ({ write }) => topicNameKey(write.item.name),
    (written) => topicNameKey(written.name),
  );
  for (const { change, write } of pending(plan, 'restore-topic')) {
    await single(change, 'restored', () => client.restoreTopic(brandId, write.topicId));
  }
  await bulkWrites(
    'competitors',
    batches(pending(plan, 'create-competitor'), COMPETITORS_PER_REQUEST),
    (batch) => client.createCompetitors(brandId, itemsOf(batch), { dryRun: false }),
    ({ write }) => competitorNameKey(write.item.name),
    (written) => competitorNameKey(written.name),
  );
  for (const { change, write } of pending(plan, 'update-persona')) {
    await single(change, 'sent again', () => client.updatePersona(brandId, write.personaId, write.change));
  }
  for (const { change, write } of pending(plan, 'update-tag')) {
    await single(change, 'sent again', () => client.updateTag(brandId, write.tagId, write.change));
  }
  return outcomes;

  async function bulkWrites<I extends { change: PlannedChange }, W extends { id: number }>(
    what: string,
    requests: I[][],
    send: (batch: I[]) => Promise<BulkAnswer<W>>,
    sentKey: (item: I) => string,
    writtenKey: (item: W) => string,
  ): Promise<void> {
    for (const [number, request] of requests.entries()) {
      const which = `${what}: request ${number + 1} of ${requests.length}`;
      const answer = await send(request).catch((error: unknown) => {
        throw namingItems(
          error,
          request.map(({ change }) => change.label),
          which,
        );
      });
      options.onRequest?.(`${which}: ${answer.written} written, ${answer.rejected.length} rejected`);
      const rejected = new Map(answer.rejected.map((rejection) => [rejection.index, rejection]));
      const untold =
        unaccounted(answer, request.length, rejected) ??
        misplaced(answer.data.map(writtenKey), request.map(sentKey), rejected);
      if (untold) {
        throw new WriteAnswerError(
          `${which} (${request.length} items): ${untold}, so bvsync cannot tell which items were written. ` +
            'It stopped here and sent nothing more; bvsync plan shows what the brand now holds',
          { endpoint: `POST ${what}` },
        );
      }
      const ids = idsOfWritten(answer.data, writtenKey, request, sentKey, rejected);
      request.forEach(({ change }, index) => {
        const rejection = rejected.get(index);
        if (rejection) {
          settle(change, {
            action: 'rejected',
            code: rejection.code,
            detail: `${rejection.code}: ${rejection.message ?? 'no message'}`,
          });
        } else {
          settle(change, { action: 'created', detail: change.detail, id: ids[index] });
        }
      });
    }
  }

  async function single(
    change: PlannedChange,
    done: AppliedAction,
    send: () => Promise<{ id: number } | undefined>,
  ): Promise<void> {
    try {
      const answer = await send();
      settle(change, { action: done, detail: change.detail, id: answer?.id });
    } catch (error) {
      if (!(error instanceof ApiError) || error.retryable || !ITEM_REJECTION_STATUSES.has(error.status ?? 0))
        throw error;
      const code = error.apiCode ?? error.code;
      settle(change, { action: 'rejected', code, detail: `${code}: ${error.message}` });
    }
  }
}

/**
 * Why a bulk answer does not account for every item sent, or undefined when it does: each rejection's index one of the
 * request's, each once, and `written` the rest; an answer is never read on trust (test/manage/dry-run-shapes.int.test.ts).
 */
function unaccounted(
  answer: BulkAnswer<unknown>,
  sent: number,
  rejected: ReadonlyMap<number, unknown>,
): string | undefined {
  const outside = answer.rejected
    .map((rejection) => rejection.index)
    .filter((index) => !Number.isInteger(index) || index < 0 || index >= sent);
  if (outside.length)
    return `the API rejected items at positions ${outside.join(', ')}, outside the ${sent} sent (counted from 0)`;
  if (rejected.size !== answer.rejected.length) return 'the API rejected one position twice';
  if (answer.written !== sent - rejected.size)
    return `the API answered ${answer.written} written and ${rejected.size} rejected`;
  return undefined;
}

/**
 * A bulk request's refusal with each detail's place in it (`urls[37].url`) named by the file's item: a request is one
 * batch, so its places are not the file's. Any other error as it was.
 */
function namingItems(error: unknown, labels: string[], request: string): unknown {
  if (!(error instanceof ValidationError) || !error.details?.length) return error;
  const places = new Map<number, string>();
  for (const detail of error.details) {
    const place = /^[a-z_]+\[(\d+)\]/i.exec(detail.field);
    const index = place ? Number(place[1]) : NaN;
    if (labels[index] !== undefined) places.set(index, labels[index]!);
  }
  if (places.size === 0) return error;
  const named = [...places].slice(0, 5).map(([index, label]) => `[${index}] is ${JSON.stringify(label)}`);
  const more = places.size > 5 ? ` and ${places.size - 5} more` : '';
  return new ValidationError(
    `${error.message} (${request}, counted from 0: ${named.join(', ')}${more}; correct or remove it in the file)`,
    error,
  );
}

/** The changes of a plan that wait for one type of write, each with its write, typed. */
function pending<T extends PendingWrite['type']>(
  plan: ChangePlan,
  type: T,
): Array<{ change: PlannedChange; write: Extract<PendingWrite, { type: T }> }> {
  return plan.changes.flatMap((change) =>
    change.write?.type === type ? [{ change, write: change.write as Extract<PendingWrite, { type: T }> }] : [],
  );
}
