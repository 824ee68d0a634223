import { enqueueRun, readProgress, type RunProgress } from '../../src/engine/run/start-run.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import type { EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

const FINISHED = new Set(['complete', 'incomplete', 'failed']);

/** Enqueues a backfill of the fixture's brands and waits until the workers already running have finished it. */
export async function backfillWithRunningWorkers(
  fx: EngineFixture,
  options: { streams: string[]; from: string; to: string; timeoutMs?: number },
): Promise<RunProgress> {
  const { runId } = await enqueueRun({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'backfill',
    brands: fx.config.brands,
    streams: options.streams,
    today: options.to,
    from: options.from,
    to: options.to,
  });
  const connection = connectRedis(fx.redisUrl);
  const runs = new RunStore(connection, fx.config.redisPrefix);
  try {
    let progress: RunProgress | undefined;
    await until(
      `run ${runId} to finish`,
      async () => {
        progress = await readProgress(runs, runId);
        return FINISHED.has(progress.meta.status);
      },
      options.timeoutMs ?? 45_000,
      200,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(progress?.meta)} ${progress?.done}/${progress?.planned}`);
    });
    return progress!;
  } finally {
    connection.disconnect();
  }
}
