import { enqueueRun, readProgress, type RunProgress } from '../../src/engine/start-run.js';
import { connectRedis } from '../../src/engine/redis.js';
import { RunStore } from '../../src/engine/run-store.js';
import type { EngineFixture } from '../support/engine.js';

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
  const deadline = Date.now() + (options.timeoutMs ?? 45_000);
  try {
    for (;;) {
      const progress = await readProgress(runs, runId);
      if (FINISHED.has(progress.meta.status)) return progress;
      if (Date.now() > deadline)
        throw new Error(
          `run ${runId} did not finish: ${JSON.stringify(progress.meta)} ${progress.done}/${progress.planned}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    connection.disconnect();
  }
}
