import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import {
  cliEnv,
  engineFixture,
  runInProcess,
  spawnBvsync,
  tableDifferences,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { fillVolume, tmpfsRefusal } from '../support/tmpfs.js';

/**
 * A backfill whose warehouse sits on a small tmpfs that is full: the command ends with exit 1 and a message naming the
 * path and its free space, no load job fails (the one that met the disk waits for the next writer), the published file
 * is untouched, and once the filler is removed the same command completes with the tables of a clean run.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-14';
const STREAMS = 'conversations,visibility,citations';
const TMPFS_SIZE = '48m';
/** Room the filler leaves: less than the backfill's commits need, more than opening the file does. */
const LEFT_FREE_BYTES = 1024 * 1024;

const refusal = tmpfsRefusal();
if (refusal) console.warn(`test/engine/disk-full.int.test.ts skipped: ${refusal}`);

let fx: EngineFixture;
let small: string;
let mounted = false;
const prefix = uniquePrefix('disk-full-small');

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function backfill(from: string, notify?: WebhookReceiver): Promise<CliResult> {
  const db = join(small, 'bv.duckdb');
  const webhooks = notify ? [{ url: notify.url, events: ['machine_fault'], format: 'json' }] : [];
  // The 48 MiB volume is sized for what a 256MB budget spills; a smaller budget spills more beside the file.
  const config = writeCliConfig(fx, { redisPrefix: prefix, notify: { webhooks }, warehouse: { memoryLimit: '256MB' } });
  return spawnBvsync(
    ['backfill', '--from', from, '--to', TODAY, '--today', TODAY, '--streams', STREAMS, '--config', config],
    cliEnv(fx, { BVSYNC_DB: db }),
  ).done;
}

async function loadJobCounts(): Promise<Record<string, number>> {
  const connection = connectRedis(fx.redisUrl);
  const queue = new Queue('load', { connection, prefix });
  try {
    return await queue.getJobCounts('failed', 'delayed', 'waiting', 'completed');
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

describe.skipIf(refusal !== undefined)('a backfill into a warehouse on a full disk', () => {
  beforeAll(async () => {
    fx = await engineFixture('disk-full', { config: { sync: { fetchConcurrency: 4 } } });
    // The clean runs the recovered ones must equal, on the ordinary disk: the last day, then the window.
    for (const from of [TODAY, FROM]) {
      const clean = await runInProcess(fx, {
        kind: 'backfill',
        today: TODAY,
        from,
        to: TODAY,
        streams: STREAMS.split(','),
      });
      expect(clean.meta.status).toBe('complete');
    }
    small = join(fx.dir, 'small');
    mkdirSync(small);
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', small]);
    mounted = true;
  }, 120_000);

  afterAll(async () => {
    if (mounted) execFileSync('umount', [small]);
    const redis = testRedis();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    await fx?.cleanup();
  });

  it('stops at the first load that meets it, says where and what to do, and completes once there is room', async () => {
    // A first backfill of the last day publishes a file for the analysts.
    const seeded = await backfill(TODAY);
    expect(seeded.code, seeded.stderr).toBe(0);
    // The preflight warned (48 MiB is short of the spill a 256MB memory limit may take) and ran all the same.
    expect(seeded.stderr).toMatch(/preflight: [\d.]+ MiB free on \S+small, below what the next run \(1 day\) may need/);
    const published = join(small, 'bv.duckdb');
    const publishedBefore = sha256(published);

    const filler = fillVolume(small, LEFT_FREE_BYTES);
    const receiver = await startWebhookReceiver();
    const full = await backfill(FROM, receiver).finally(() => receiver.close());
    expect(full.code, full.stderr).toBe(1);
    expect(full.stderr).toMatch(/bvsync: the disk is full where the warehouse writes \//);
    expect(full.stderr).toContain(small);
    expect(full.stderr).toMatch(/[\d.]+ (bytes|KiB|MiB) free of 48\.0 MiB on its volume/);
    expect(full.stderr).toContain('Free space on that volume, then run the same command again');
    // Stopped at the first load that met the disk: no load job failed one by one, the one that met it waits.
    expect(full.stderr).not.toMatch(/load job failed/);
    expect((await loadJobCounts()).failed).toBe(0);
    expect(sha256(published)).toBe(publishedBefore);
    // A person hears of it: one machine_fault notice naming the disk.
    expect(
      receiver.received
        .map((request) => request.json())
        .map(({ event, component, code }) => ({ event, component, code })),
    ).toEqual([{ event: 'machine_fault', component: 'disk', code: 'disk_full' }]);

    rmSync(filler);
    const again = await backfill(FROM);
    expect(again.code, again.stderr).toBe(0);
    expect(await tableDifferences(fx.config.db, published)).toEqual([]);
  }, 240_000);

  it('ends a bvsync worker with exit 1 and the same message, rather than leaving it up and not loading', async () => {
    const published = join(small, 'bv.duckdb');
    const publishedBefore = sha256(published);
    const filler = fillVolume(small, LEFT_FREE_BYTES);
    const env = cliEnv(fx, { BVSYNC_DB: published });
    const config = writeCliConfig(fx, { redisPrefix: prefix });
    const worker = spawnBvsync(['worker', '--config', config], env);
    try {
      const enqueued = await spawnBvsync(
        [
          'backfill',
          '--from',
          FROM,
          '--to',
          TODAY,
          '--today',
          TODAY,
          '--streams',
          STREAMS,
          '--enqueue-only',
          '--config',
          config,
        ],
        env,
      ).done;
      expect(enqueued.code, enqueued.stderr).toBe(0);
      const ended = await worker.done;
      expect(ended.code, ended.stderr).toBe(1);
      expect(ended.stderr).toMatch(
        /bvsync: the disk is full where the warehouse writes \/\S+small\/bv\.work\.duckdb[^:]*: [\d.]+ (bytes|KiB|MiB) free of 48\.0 MiB/,
      );
      expect(ended.stderr).not.toMatch(/load job failed/);
      expect((await loadJobCounts()).failed).toBe(0);
      expect(sha256(published)).toBe(publishedBefore);
    } finally {
      worker.kill('SIGKILL');
      rmSync(filler, { force: true });
    }
  }, 120_000);
});
