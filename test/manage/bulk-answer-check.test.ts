import { describe, expect, it } from 'vitest';
import { classifyResponse, ValidationError } from '../../src/api/errors.js';
import { WriteAnswerError } from '../../src/api/writes/write-answer-error.js';
import type { BulkAnswer, WrittenTrackedUrl } from '../../src/api/writes/write-schemas.js';
import type { WriteClient } from '../../src/api/writes/writes.js';
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
  changes: URLS.map((url) => ({
    kind: 'tracked URL',
    label: url,
    action: 'create',
    write: { type: 'track-url', groupId: undefined, item: { url } },
  })),
} as ChangePlan;

/** A write client whose one bulk answer is `answer`; nothing else of it is called. */
function answering(answer: Partial<BulkAnswer<WrittenTrackedUrl>>): WriteClient {
  return {
    trackUrls: async () => ({ data: [], dryRun: false, written: 0, rejected: [], ...answer }),
  } as unknown as WriteClient;
}

async function outcome(answer: Partial<BulkAnswer<WrittenTrackedUrl>>): Promise<AppliedChange[] | Error> {
  return applyPlan(answering(answer), plan).catch((error: Error) => error);
}

const page = (id: number, url: string) => ({ id, url }) as unknown as WrittenTrackedUrl;

describe("a bulk write's answer", () => {
  it('that accounts for every item: each created with its id, the rejected one rejected', async () => {
    const applied = (await outcome({
      written: 2,
      data: [page(7, URLS[0]!), page(9, URLS[2]!)],
      rejected: [{ index: 1, code: 'invalid_url' }],
    })) as AppliedChange[];
    expect(applied.map((change) => [change.action, change.id ?? change.code])).toEqual([
      ['created', 7],
      ['rejected', 'invalid_url'],
      ['created', 9],
    ]);
  });

  it('stops the apply when a rejection position is outside the request (counted from 1)', async () => {
    const error = await outcome({ written: 2, rejected: [{ index: 3, code: 'invalid_url' }] });
    expect(error).toBeInstanceOf(WriteAnswerError);
    expect((error as Error).message).toMatch(
      /the API rejected items at positions 3, outside the 3 sent \(counted from 0\), so bvsync cannot tell which items were written/,
    );
  });

  it('stops the apply when the written count leaves items unaccounted for (rejections counted only, or written later: 202)', async () => {
    for (const answer of [
      { written: 2, rejected: [] },
      { written: 0, rejected: [] },
    ]) {
      const error = await outcome(answer);
      expect(error).toBeInstanceOf(WriteAnswerError);
      expect((error as Error).message).toMatch(new RegExp(`the API answered ${answer.written} written and 0 rejected`));
    }
  });

  it('stops the apply when data[] lists as written an item the positions read as rejected (counted from 1, adding up)', async () => {
    // The second URL was rejected; an API counting from 1 says position 2, which is the third URL counted from 0.
    const error = await outcome({
      written: 2,
      data: [page(7, URLS[0]!), page(9, URLS[2]!)],
      rejected: [{ index: 2, code: 'invalid_url' }],
    });
    expect(error).toBeInstanceOf(WriteAnswerError);
    expect((error as Error).message).toMatch(
      /the API rejected position 2 \("https:\/\/a\.example\/3"\) and lists that item among those written in data\[\]: its positions may not count from 0/,
    );
  });

  it('gives each created item the id data[] lists for its address, in whatever order and form the API answers it', async () => {
    const applied = (await outcome({
      written: 2,
      data: [page(9, 'HTTPS://A.example/3/'), page(7, URLS[0]!)],
      rejected: [{ index: 1, code: 'invalid_url' }],
    })) as AppliedChange[];
    // By order, the first URL had been given the third's id.
    expect(applied.map((change) => [change.action, change.id ?? change.code])).toEqual([
      ['created', 7],
      ['rejected', 'invalid_url'],
      ['created', 9],
    ]);
  });

  it('falls back to the order of data[] when it names none of the items as they were sent', async () => {
    const applied = (await outcome({
      written: 2,
      data: [page(7, 'https://elsewhere/1'), page(9, 'https://elsewhere/3')],
      rejected: [{ index: 1, code: 'invalid_url' }],
    })) as AppliedChange[];
    expect(applied.map((change) => [change.action, change.id ?? change.code])).toEqual([
      ['created', 7],
      ['rejected', 'invalid_url'],
      ['created', 9],
    ]);
  });

  it('names the item of the file a refusal of the whole request points at by its place in the request', async () => {
    const refusal = classifyResponse({
      status: 422,
      headers: {},
      endpoint: 'POST /brands/1/tracked-urls',
      body: {
        error: {
          code: 'validation_error',
          message: 'invalid items',
          details: [{ field: 'urls[1].url', message: 'not a valid URL' }],
        },
      },
    });
    const client = { trackUrls: async () => Promise.reject(refusal) } as unknown as WriteClient;
    const error = await applyPlan(client, plan).catch((failure: Error) => failure);
    expect(error).toBeInstanceOf(ValidationError);
    // It had said only urls[1], a place in one batch of up to 200, not which of the file's entries.
    expect((error as Error).message).toMatch(
      /\[urls\[1\]\.url: not a valid URL\] \(tracked URLs: request 1 of 1, counted from 0: \[1\] is "https:\/\/a\.example\/bad"; correct or remove it in the file\)$/,
    );
    expect((error as ValidationError).status).toBe(422);
  });

  it('gives an entry named otherwise than sent the id left over, when data[] lists one entry per item written', async () => {
    const competitors: ChangePlan = {
      brandId: 1,
      changes: ['Acme', 'Beta'].map((name) => ({
        kind: 'competitor',
        label: name,
        action: 'create',
        write: { type: 'create-competitor', item: { name, website: `https://${name}.example` } },
      })),
    } as ChangePlan;
    // The API made "Acme" the suggestion it already had, under its own spelling (spec, endpoint 6).
    const answer = {
      data: [
        { id: 10, name: 'ACME Corp' },
        { id: 11, name: 'Beta' },
      ],
      dryRun: false,
      written: 2,
      rejected: [],
    };
    const client = { createCompetitors: async () => answer } as unknown as WriteClient;
    const applied = await applyPlan(client, competitors);
    // Matched by name alone, Acme had been given no id.
    expect(applied.map((change) => [change.label, change.id])).toEqual([
      ['Acme', 10],
      ['Beta', 11],
    ]);
  });
});
