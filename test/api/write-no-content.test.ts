import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createWriteClient } from '../../src/api/writes/writes.js';
import { MOCK_ORIGIN, mockConfig } from './mock-api.js';

/**
 * The spec lists no success codes. A write answered 2xx without a body (204 No Content) was read as a broken answer
 * and sent again: a PATCH three times, then the apply stopped.
 */
describe('a write answered 204 No Content', () => {
  it('is done, sent once, with nothing to read back', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    let patches = 0;
    agent
      .get(MOCK_ORIGIN)
      .intercept({ path: () => true, method: 'PATCH' })
      .reply(() => {
        patches += 1;
        return { statusCode: 204, data: '' };
      })
      .persist();
    const client = createWriteClient(mockConfig({ maxAttempts: 3 }), { dispatcher: agent });
    try {
      await expect(
        client.updatePersona(1, 100003, { description: 'Runs a small bakery' } as never),
      ).resolves.toBeUndefined();
      expect(patches).toBe(1);
    } finally {
      await client.close();
    }
  });
});
