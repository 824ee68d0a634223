import { describe, expect, it } from 'vitest';
import { WriteAnswerError } from '../../src/api/write-answer-error.js';
import type { BulkAnswer, WrittenTrackedUrl } from '../../src/api/write-schemas.js';
import type { WriteClient } from '../../src/api/writes.js';
import { applyPlan, type AppliedChange } from '../../src/manage/apply-plan.js';
import type { ChangePlan } from '../../src/manage/planned-change.js';

/**
 * A bulk answer says per item what became of it only through rejection positions and a written count, both the API's
 * to spell (the spec says "position", not from where it counts). An answer that does not account for every item sent
 * stops the apply instead of reporting items "created" that were never written.
 */

const URLS = ['https://a.example/1', 'https://a.example/bad', 'https://a.example/3'];
const plan: ChangePlan = {
  brandId: 1,
  changes: URLS.map((url) => ({ kind: 'tracked URL', label: url, action: 'create', write: { type: 'track-url', groupId: undefined, item: { url } } })),
} as ChangePlan;

/** A write client whose one bulk answer is `answer`; nothing else of it is called. */
function answering(answer: Partial<BulkAnswer<WrittenTrackedUrl>>): WriteClient {
  return { trackUrls: async () => ({ data: [], dryRun: false, written: 0, rejected: [], ...answer }) } as unknown as WriteClient;
}

async function outcome(answer: Partial<BulkAnswer<WrittenTrackedUrl>>): Promise<AppliedChange[] | Error> {
  return applyPlan(answering(answer), plan).catch((error: Error) => error);
}

const page = (id: number, url: string) => ({ id, url }) as unknown as WrittenTrackedUrl;

describe("a bulk write's answer", () => {
  it('that accounts for every item: each created with its id, the rejected one rejected', async () => {
    const applied = (await outcome({ written: 2, data: [page(7, URLS[0]!), page(9, URLS[2]!)], rejected: [{ index: 1, code: 'invalid_url' }] })) as AppliedChange[];
    expect(applied.map((change) => [change.action, change.id ?? change.code])).toEqual([['created', 7], ['rejected', 'invalid_url'], ['created', 9]]);
  });

  it('stops the apply when a rejection position is outside the request (counted from 1)', async () => {
    const error = await outcome({ written: 2, rejected: [{ index: 3, code: 'invalid_url' }] });
    expect(error).toBeInstanceOf(WriteAnswerError);
    expect((error as Error).message).toMatch(/the API rejected items at positions 3, outside the 3 sent \(counted from 0\), so bvsync cannot tell which items were written/);
  });

  it('stops the apply when the written count leaves items unaccounted for (rejections counted only, or written later: 202)', async () => {
    for (const answer of [{ written: 2, rejected: [] }, { written: 0, rejected: [] }]) {
      const error = await outcome(answer);
      expect(error).toBeInstanceOf(WriteAnswerError);
      expect((error as Error).message).toMatch(new RegExp(`the API answered ${answer.written} written and 0 rejected`));
    }
  });
});
