import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { WriteAnswerError } from '../../src/api/write-answer-error.js';
import { createWriteClient } from '../../src/api/writes.js';
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
        return { statusCode: 207, data: JSON.stringify({ results: [{ status: 201, id: 5 }, { status: 409, code: 'conflict' }] }), responseOptions: { headers: { 'content-type': 'application/json' } } };
      })
      .persist();
    const client = createWriteClient(mockConfig({ maxAttempts: 3 }), { dispatcher: agent });
    try {
      const error = await client.trackUrls(1, [{ url: 'https://a.example/1' }, { url: 'https://a.example/2' }], undefined, { dryRun: false }).catch((failure: Error) => failure);
      expect(error).toBeInstanceOf(WriteAnswerError);
      expect((error as Error).message).toMatch(/: the answer does not match the spec: .+\. The API accepted the request, so it may have written: bvsync sent nothing more; bvsync plan shows what the brand now holds$/);
      expect(posts).toBe(1);
    } finally {
      await client.close();
    }
  });
});
