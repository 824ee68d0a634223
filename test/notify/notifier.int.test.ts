import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Notifier, PAYLOAD_VERSION, machineFault, type RunNotice } from '../../src/notify/index.js';
import { tempDir } from '../support/tmp.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * The notifier against a real HTTP receiver: what it sends, how it retries, how long it may take, and that the URL (a
 * secret) never reaches a log line.
 */

const SECRET_PATH = '/services/T000/B000/s3cr3t-token-of-the-hook';

const RUN_FAILED: RunNotice = {
  event: 'run_failed',
  run: {
    id: 'run-1',
    kind: 'sync',
    status: 'failed',
    brands: [1],
    streams: ['visibility'],
    from: '2026-11-19',
    to: '2026-11-20',
    startedAt: '2026-11-20T02:00:00.000Z',
    finishedAt: '2026-11-20T02:01:00.000Z',
    error: null,
  },
  counts: { slices: 2, done: 2, failed: 2, incomplete: 0, rows: 0, requests: 2, rateLimited: 0 },
  errors: [{ brand: 1, stream: 'visibility', slice: '2026-11-19', code: 'forbidden', message: 'HTTP 403 forbidden' }],
};

let receiver: WebhookReceiver | undefined;
let lines: string[] = [];
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  lines = [];
});

/** A logger at debug level whose every line is kept, to look for the URL in. */
function capturingLogger() {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}

function notifier(webhooks: unknown[], notify: Record<string, unknown> = {}) {
  const config = parseConfig({ redisPrefix: 'notify-test', db: '/tmp/bv.duckdb', notify: { webhooks, ...notify } });
  return new Notifier({ config, log: capturingLogger(), retryBaseMs: 20 });
}

describe('a webhook in the json format', () => {
  it('gets one POST of the versioned payload for an event it asked for, and nothing for others', async () => {
    receiver = await startWebhookReceiver();
    const sender = notifier([{ url: receiver.url + SECRET_PATH, events: ['run_failed'] }]);
    await sender.notify(RUN_FAILED);
    await sender.notify(machineFault('redis', 'redis_unavailable', 'no Redis answers'));
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe(SECRET_PATH);
    expect(request!.contentType).toBe('application/json');
    expect(request!.json()).toMatchObject({
      version: PAYLOAD_VERSION,
      event: 'run_failed',
      run: { id: 'run-1', status: 'failed' },
      counts: { slices: 2, failed: 2 },
      errors: [{ brand: 1, stream: 'visibility', code: 'forbidden' }],
      source: { prefix: 'notify-test', db: '/tmp/bv.duckdb' },
    });
    expect(request!.json().summary).toMatch(/sync run run-1 ended failed: 2 failed/);
  });

  it('is tried again after 500s: answered 500 twice then 200, it gets the notice on the third try', async () => {
    receiver = await startWebhookReceiver((nth) => (nth <= 2 ? 500 : 200));
    const sender = notifier([{ url: receiver.url + SECRET_PATH, events: ['run_failed'] }]);
    await sender.notify(RUN_FAILED);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((request) => request.body)).size).toBe(1);
    expect(lines.join('')).toMatch(/"attempts":3.*"msg":"notified"/);
  });

  it('is not tried again after a 404: a retry cannot change it', async () => {
    receiver = await startWebhookReceiver(() => 404);
    const sender = notifier([{ url: receiver.url + SECRET_PATH, events: ['run_failed'] }]);
    await sender.notify(RUN_FAILED);
    expect(receiver.received).toHaveLength(1);
    expect(lines.join('')).toMatch(/HTTP 404, not retried/);
  });

  it('gives up on a receiver that never answers within notify.deliverySeconds, and never throws', async () => {
    receiver = await startWebhookReceiver(() => 'hang');
    const sender = notifier([{ url: receiver.url + SECRET_PATH, events: ['run_failed'] }], { deliverySeconds: 1 });
    const started = performance.now();
    await expect(sender.notify(RUN_FAILED)).resolves.toBeUndefined();
    const tookMs = performance.now() - started;
    expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    // The bound (1 s) plus what a busy machine adds to a timer; without the bound, the request waits for ever.
    expect(tookMs).toBeLessThan(4_000);
    expect(lines.join('')).toMatch(/could not notify the webhook/);
  });

  it('is bounded across garbage collections by notify.deliverySeconds, for a port no one listens on', async () => {
    // Collections dropped a deadline only AbortSignal.any held, and the retries went on for ever (notifier.ts).
    v8.setFlagsFromString('--expose-gc');
    const collect = vm.runInNewContext('gc') as () => void;
    const sender = notifier([{ url: `http://127.0.0.1:1${SECRET_PATH}`, events: ['run_failed'] }], {
      deliverySeconds: 1,
    });
    const collecting = setInterval(collect, 20);
    try {
      await sender.notify(RUN_FAILED);
    } finally {
      clearInterval(collecting);
    }
    expect(lines.join('')).toMatch(/out of time.*could not notify the webhook/);
  });

  it('never writes the URL in a log line, at debug level, whether it is reached or not', async () => {
    receiver = await startWebhookReceiver((nth) => (nth === 1 ? 503 : 200));
    const sender = notifier(
      [
        { url: receiver.url + SECRET_PATH, events: ['run_failed'] },
        { url: `http://127.0.0.1:1${SECRET_PATH}-unreachable`, events: ['run_failed'] },
      ],
      { deliverySeconds: 2 },
    );
    await sender.notify(RUN_FAILED);
    expect(receiver.received).toHaveLength(2);
    const logged = lines.join('');
    expect(logged).toMatch(/"webhook":1/);
    expect(logged).toMatch(/"webhook":2/);
    expect(logged).not.toContain('s3cr3t-token');
    expect(logged).not.toContain(receiver.url);
  });
});

describe('a webhook in the slack format', () => {
  it('gets a {"text"} a Slack incoming webhook shows, with the run and its first errors', async () => {
    receiver = await startWebhookReceiver();
    const sender = notifier([{ url: receiver.url + SECRET_PATH, events: ['run_failed'], format: 'slack' }]);
    await sender.notify(RUN_FAILED);
    const body = receiver.received[0]!.json();
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text).toMatch(/sync run run-1 ended failed/);
    expect(body.text).toMatch(/brand 1 visibility 2026-11-19: forbidden: HTTP 403 forbidden/);
  });
});

describe('a webhook URL read from a file', () => {
  it('is read from urlFile, with a warning when others may read the file and none when they may not', async () => {
    receiver = await startWebhookReceiver();
    const dir = tempDir('notify-url-file');
    try {
      const file = join(dir.path, 'webhook-url');
      writeFileSync(file, `${receiver.url}${SECRET_PATH}\n`);
      chmodSync(file, 0o644);
      await notifier([{ urlFile: file, events: ['machine_fault'] }]).notify(
        machineFault('redis', 'redis_unavailable', 'no Redis answers'),
      );
      expect(receiver.received[0]!.path).toBe(SECRET_PATH);
      expect(lines.join('')).toMatch(/readable by other users/);
      lines = [];
      chmodSync(file, 0o600);
      notifier([{ urlFile: file, events: ['machine_fault'] }]);
      expect(lines.join('')).not.toMatch(/readable by other users/);
    } finally {
      dir.remove();
    }
  });

  it('refuses a config naming both url and urlFile, without quoting the URL', () => {
    expect(() =>
      parseConfig({
        notify: {
          webhooks: [
            { url: `https://hooks.example.com${SECRET_PATH}`, urlFile: '/run/secrets/hook', events: ['stale'] },
          ],
        },
      }),
    ).toThrow(/notify\.webhooks\[0\]: give the webhook either "url" or "urlFile"/);
    const message = (() => {
      try {
        parseConfig({ notify: { webhooks: [{ url: `ftp://hooks.example.com${SECRET_PATH}`, events: ['stale'] }] } });
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/notify\.webhooks\[0\]\.url: expected a URL that starts with http/);
    expect(message).not.toContain('s3cr3t');
  });
});
