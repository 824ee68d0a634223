import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransientError } from '../../src/api/errors.js';
import { Transport } from '../../src/api/transport.js';
import { createWriteClient } from '../../src/api/writes/writes.js';
import { parseConfig } from '../../src/configuration.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';

/**
 * Writes on the reads' transport: a POST is sent again after a failure only when it carries its idempotency value,
 * and the value travels under the header `api.idempotencyHeader` names (the spec does not name it).
 */

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ today: '2026-11-20', days: 1, scale: 5, idempotencyHeader: 'X-Request-Token' });
});
afterAll(async () => sim?.close());

function apiConfig() {
  return parseConfig({
    api: {
      url: sim.url,
      apiKey: sim.apiKey,
      idempotencyHeader: 'X-Request-Token',
      maxAttempts: 3,
      retryBaseMs: 1,
      retryMaxMs: 5,
    },
  }).api;
}

function postsTo(path: string): number {
  return sim.requestLog().filter((entry) => entry.method === 'POST' && entry.path === path).length;
}

describe('write retries', () => {
  it('a POST without an idempotency value is sent once, one with it up to maxAttempts', async () => {
    const config = apiConfig();
    const transport = new Transport({ ...config, url: sim.url, apiKey: sim.apiKey });
    const path = '/customer/v1/brands/1/competitors';
    const body = { competitors: [{ name: 'Retryline', website: 'retryline.com' }], dry_run: true };
    sim.clearRequestLog();
    sim.setKnobs({ faultRate: 1, faultKinds: ['5xx'] });
    try {
      await expect(
        transport.send({ method: 'POST', path, endpoint: `POST ${path}`, body }, (answer) => answer),
      ).rejects.toBeInstanceOf(TransientError);
      expect(postsTo(path)).toBe(1);
      sim.clearRequestLog();
      const idempotency = { header: config.idempotencyHeader, value: 'retry-test-1' };
      await expect(
        transport.send({ method: 'POST', path, endpoint: `POST ${path}`, body, idempotency }, (answer) => answer),
      ).rejects.toBeInstanceOf(TransientError);
      expect(postsTo(path)).toBe(3);
    } finally {
      sim.setKnobs({ faultRate: 0 });
      await transport.close();
    }
  });

  it('the same write sent twice under the configured header is written once', async () => {
    const client = createWriteClient(apiConfig());
    try {
      sim.clearRequestLog();
      const first = await client.createCompetitors(1, [{ name: 'Oncewave', website: 'oncewave.com' }], {
        dryRun: false,
      });
      // What a retry after a lost answer sends: the same request, so the same value; the API answers the first answer.
      const again = await client.createCompetitors(1, [{ name: 'Oncewave', website: 'oncewave.com' }], {
        dryRun: false,
      });
      expect(first.written).toBe(1);
      expect(again).toEqual(first);
      const written = sim.requestLog().map((entry) => entry.written);
      expect(written).toEqual([1, 0]);
    } finally {
      await client.close();
    }
  });

  it('a write someone undid since is written again by the next apply, not answered from the replay of the first', async () => {
    const clients = [createWriteClient(apiConfig()), createWriteClient(apiConfig()), createWriteClient(apiConfig())];
    try {
      const [page] = await clients[0]!.trackedPages(1);
      sim.clearRequestLog();
      await clients[0]!.updateTrackedUrl(1, page!.id, { title: 'Renamed by apply' });
      // Someone puts the title back (the dashboard, another tool), then the same file is applied again.
      await clients[1]!.updateTrackedUrl(1, page!.id, { title: page!.title ?? 'untitled' });
      await clients[2]!.updateTrackedUrl(1, page!.id, { title: 'Renamed by apply' });
      expect(sim.requestLog().map((entry) => entry.written)).toEqual([1, 1, 1]);
      expect((await clients[0]!.trackedPages(1)).find((each) => each.id === page!.id)?.title).toBe('Renamed by apply');
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it("refuses a batch over the spec's limit before sending it", async () => {
    const client = createWriteClient(apiConfig());
    try {
      sim.clearRequestLog();
      const urls = Array.from({ length: 201 }, (_, n) => ({ url: `https://example.com/${n}` }));
      await expect(client.trackUrls(1, urls, undefined, { dryRun: true })).rejects.toThrow(
        /201 in one request; the spec allows 1 to 200/,
      );
      expect(sim.requestLog()).toHaveLength(0);
    } finally {
      await client.close();
    }
  });
});
