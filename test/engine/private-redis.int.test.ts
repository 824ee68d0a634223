import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { startPrivateRedis } from '../../src/engine/redis/redis.js';
import { until } from '../support/until.js';
import { runScript, type ChildScript, type ScriptOptions } from '../warehouse/child-process.js';

/**
 * The private redis-server a command starts when no Redis answers, and its /tmp folder, end with the process: at exit,
 * at stop(), and on a SIGINT/SIGTERM nothing else listens for (Node's default for those ended the process without an
 * 'exit' event and left the server running). A command that handles the signal itself keeps Redis until its stop().
 */

const HAVE_REDIS_SERVER = (process.env.PATH ?? '')
  .split(':')
  .some((dir) => dir && existsSync(join(dir, 'redis-server')));
const CHILD = 'test/engine/fixtures/private-redis-child.ts';
const SIGNALS_AND_EXIT = ['SIGINT', 'SIGTERM', 'exit'] as const;

/** Whether a Redis answers at the URL, and its working folder when it does. */
async function probe(url: string): Promise<{ answers: boolean; dir?: string }> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    const [, dir] = (await redis.config('GET', 'dir')) as [string, string];
    return { answers: true, dir };
  } catch {
    return { answers: false };
  } finally {
    redis.disconnect();
  }
}

/** A child with a private Redis started, and that Redis's URL and folder as it reports them. */
async function startChild(
  args: string[] = [],
  options: ScriptOptions = {},
): Promise<{ script: ChildScript; url: string; dir: string }> {
  const script = runScript(CHILD, args, options);
  const { url } = JSON.parse(await script.nextLine()) as { url: string };
  const { answers, dir } = await probe(url);
  expect(answers).toBe(true);
  expect(dir).toMatch(/bvsync-redis-/);
  expect(existsSync(dir!)).toBe(true);
  return { script, url, dir: dir! };
}

async function expectGone(url: string, dir: string): Promise<void> {
  await until(`the private Redis at ${url} to stop answering`, async () => !(await probe(url)).answers, 5_000);
  // Its warden removes the folder once the server has exited, a moment after it stops answering (CI met the folder then).
  await until(`the private Redis's folder ${dir} to be removed`, async () => !existsSync(dir), 5_000);
}

describe.skipIf(!HAVE_REDIS_SERVER)('a private redis-server (needs redis-server on PATH)', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'goes with its folder when %s ends a process that has no handler for it',
    async (signal) => {
      const { script, url, dir } = await startChild();
      script.child.kill(signal);
      const exited = await script.exited;
      // Ended as Node's default would have ended it, not with an exit code of ours.
      expect({ code: exited.code, signal: exited.signal }, exited.stderr).toEqual({ code: null, signal });
      await expectGone(url, dir);
    },
  );

  it('goes with its folder when the process exits without stopping it', async () => {
    const { script, url, dir } = await startChild();
    script.child.stdin.write('exit\n');
    const exited = await script.exited;
    expect(exited.code, exited.stderr).toBe(3);
    await expectGone(url, dir);
  });

  it.each(['after', 'before'])(
    "stays up through a SIGTERM the command handles itself (armed %s the start), until the command's stop()",
    async (when) => {
      const { script, url, dir } = await startChild([`--graceful=${when}`]);
      script.child.kill('SIGTERM');
      expect(await script.nextLine()).toBe('signalled');
      // The command's graceful stop still closes queues on this Redis.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await probe(url)).answers).toBe(true);
      expect(existsSync(dir)).toBe(true);
      script.child.stdin.write('stop\n');
      expect(await script.nextLine()).toBe('stopped');
      const exited = await script.exited;
      expect(exited.code, exited.stderr).toBe(0);
      await expectGone(url, dir);
    },
  );

  it.each(['SIGKILL', 'SIGHUP'] as const)(
    'goes with its folder when %s ends the process, which no listener sees',
    async (signal) => {
      const { script, url, dir } = await startChild();
      script.child.kill(signal);
      expect((await script.exited).signal).toBe(signal);
      await expectGone(url, dir);
    },
  );

  it("stays up through a terminal's Ctrl-C, which signals the command's whole process group, until the command's stop()", async () => {
    const { script, url, dir } = await startChild(['--graceful=after', '--signal=SIGINT'], { detached: true });
    process.kill(-script.child.pid!, 'SIGINT');
    expect(await script.nextLine()).toBe('signalled');
    // The command's graceful stop still closes queues on this Redis: the server was not in the group the signal reached.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await probe(url)).answers).toBe(true);
    script.child.stdin.write('stop\n');
    expect(await script.nextLine()).toBe('stopped');
    expect((await script.exited).code).toBe(0);
    await expectGone(url, dir);
  });

  it('says there is no redis-server on PATH when there is none', async () => {
    // A PATH with a shell and nothing else.
    const bin = mkdtempSync(join(tmpdir(), 'bvsync-nopath-'));
    try {
      symlinkSync('/bin/sh', join(bin, 'sh'));
      const script = runScript(CHILD, [], { env: { ...process.env, PATH: bin } });
      const exited = await script.exited;
      expect(exited.code).not.toBe(0);
      expect(exited.stderr).toMatch(/no redis-server on PATH.*install redis-server/s);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('stop() removes its folder and every process listener it added, however often it is started', async () => {
    const counts = () => SIGNALS_AND_EXIT.map((event) => process.listenerCount(event));
    const before = counts();
    for (let round = 0; round < 3; round++) {
      const redis = await startPrivateRedis();
      const { answers, dir } = await probe(redis.url);
      expect(answers).toBe(true);
      expect(existsSync(dir!)).toBe(true);
      expect(counts()).toEqual(before.map((count) => count + 1));
      await redis.stop();
      expect((await probe(redis.url)).answers).toBe(false);
      expect(existsSync(dir!)).toBe(false);
      expect(counts()).toEqual(before);
    }
  });

  it('stop() returns and removes the folder when the server was killed by a signal first', async () => {
    const redis = await startPrivateRedis();
    const { dir } = await probe(redis.url);
    const probing = new Redis(redis.url);
    const pid = Number(/process_id:(\d+)/.exec(await probing.info('server'))![1]);
    probing.disconnect();
    process.kill(pid, 'SIGKILL');
    await until('the killed Redis to stop answering', async () => !(await probe(redis.url)).answers, 5_000);
    const stopped = await Promise.race([
      redis.stop().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(resolve, 3_000, 'still waiting')),
    ]);
    expect(stopped).toBe('stopped');
    expect(existsSync(dir!)).toBe(false);
  });
});
