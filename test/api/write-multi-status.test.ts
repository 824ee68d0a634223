import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { WriteAnswerError } from '../../src/api/writes/write-answer-error.js';
import { createWriteClient } from '../../src/api/writes/writes.js';
import { MOCK_ORIGIN, mockConfig } from './mock-api.js';

/**
 * A bulk write answered 2xx in a shape the spec does not show (a 207 multi-status listing an outcome per item) may
 * have written. It failed as "does not match the spec" alone, which reads as a request refused and invites sending it
 * again.
 */
describe('a bulk write answered 207 with a body of another shape', () => {
  it('is sent once and fails saying the API may have written, and how to see what it holds', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    let posts = 0;
    agent
      .get(MOCK_ORIGIN)
      .intercept({ path: () => true, method: 'POST' })
      .reply(() => {
        posts += 1;
        return {
          statusCode: 207,
          data: JSON.stringify({
            results: [
              { status: 201, id: 5 },
              { status: 409, code: 'conflict' },
            ],
          }),
          responseOptions: { headers: { 'content-type': 'application/json' } },
        };
      })
      .persist();
    const client = createWriteClient(mockConfig({ maxAttempts: 3 }), { dispatcher: agent });
    try {
      const error = await client
        .trackUrls(1, [{ url: 'https://a.example/1' }, { url: 'https://a.example/2' }], undefined, { dryRun: false })
        .catch((failure: Error) => failure);
      expect(error).toBeInstanceOf(WriteAnswerError);
      expect((error as Error).message).toMatch(
        /: the answer does not match the spec: .+\. As for writing, it has no info\.written, so the API accepted the request and may have written\. bvsync sent nothing more; bvsync plan shows what the brand now holds$/,
      );
      expect(posts).toBe(1);
    } finally {
      await client.close();
    }
  });
});

/** An answer bvsync cannot read item by item says in `info` whether anything was written: the message repeats it. */
describe('a bulk write whose items cannot be read', () => {
  async function failure(body: unknown, dryRun: boolean): Promise<Error> {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get(MOCK_ORIGIN)
      .intercept({ path: () => true, method: 'POST' })
      .reply(200, JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
      .persist();
    const client = createWriteClient(mockConfig({ maxAttempts: 1 }), { dispatcher: agent });
    try {
      return await client
        .trackUrls(1, [{ url: 'https://a.example/1' }, { url: 'https://a.example/2' }], undefined, { dryRun })
        .then(
          () => new Error('no failure'),
          (error: Error) => error,
        );
    } finally {
      await client.close();
    }
  }

  it('says the API wrote nothing when info.written is 0', async () => {
    const error = await failure(
      {
        data: [{ id: null, url: 'https://a.example/1' }],
        info: { dry_run: false, written: 0, rejected: 0 },
        rejected: [],
      },
      false,
    );
    expect(error).toBeInstanceOf(WriteAnswerError);
    expect(error.message).toMatch(
      /data\.0\.id: .+ As for writing, its info\.written is 0: the API says it wrote nothing\./,
    );
  });

  it('says how many the API wrote when info.written says so', async () => {
    const error = await failure(
      {
        data: [
          { id: 'a', url: 'https://a.example/1' },
          { id: 'b', url: 'https://a.example/2' },
        ],
        info: { written: 2 },
        rejected: [],
      },
      false,
    );
    expect(error.message).toMatch(/As for writing, its info\.written is 2: the API says it wrote 2 items\./);
  });

  it('reads a dry run whose info.rejected exceeds rejected[] as unknown, and says it wrote nothing', async () => {
    const error = await failure({ info: { dry_run: true, written: 0, rejected: 1 } }, true);
    expect(error.message).toMatch(
      /info\.rejected is 1 but rejected\[\] lists 0, so bvsync cannot tell which items the API would reject\. As for writing, its info\.dry_run is true and info\.written 0: the API says it wrote nothing$/,
    );
  });
});
