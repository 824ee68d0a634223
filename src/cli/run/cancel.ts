import { setTimeout as sleep } from 'node:timers/promises';
import type { Queue } from 'bullmq';
import { Command } from 'commander';
import { cancelRun } from '../../engine/run/cancel-run.js';
import { cancelJobId } from '../../engine/jobs/enqueue.js';
import { openQueues, writerLeaseKey } from '../../engine/jobs/queues.js';
import { RunStore } from '../../engine/run/run-store.js';
import { formatCount } from '../../format.js';
import { addCommonOptions, commandLogger, readConfig, withRedis, type CommonFlags } from '../context.js';
import { UsageError } from '../fail.js';
import { runStreamsText, runWindowText } from '../status/status.js';
import { descriptionOf } from '../commands.js';

/** How long `cancel` waits for the writer to record the run in `_sync_runs` when a writer is running. */
const RECORD_WAIT_MS = 15_000;
const RECORD_POLL_MS = 200;

export function cancelCommand(): Command {
  return addCommonOptions(
    new Command('cancel')
      .description(descriptionOf('cancel'))
      .argument('<run>', 'the run id, as bvsync status or the sync/backfill command printed it'),
  ).action(async (runId: string, flags: CommonFlags) => {
    const config = readConfig(flags);
    const log = commandLogger(flags);
    await withRedis(config, log, { allowPrivate: false }, async (connection) => {
      const queues = openQueues(connection, config.redisPrefix);
      try {
        const result = await cancelRun(
          new RunStore(connection, config.redisPrefix),
          queues,
          connection,
          config.redisPrefix,
          runId,
        );
        if (result.outcome === 'unknown')
          throw new UsageError(`no run ${runId} in Redis: bvsync status lists the unfinished runs`);
        if (result.outcome === 'finished' && result.meta.status === 'finalizing')
          throw new UsageError(
            `run ${runId} is finishing: every slice is done and it is being recorded and published; there is nothing to cancel`,
          );
        if (result.outcome === 'finished')
          throw new UsageError(
            `run ${runId} already finished (${result.meta.status}, ${result.meta.finishedAt?.slice(0, 19) ?? ''}); there is nothing to cancel`,
          );
        const { meta, removed } = result;
        const what = `${meta.kind} ${runWindowText(meta)}, brands ${meta.brands.join(',')}, streams ${runStreamsText(meta.streams)}`;
        process.stdout.write(
          `${result.outcome === 'cancelled' ? 'cancelled' : 'already cancelled:'} run ${runId} (${what}): ` +
            `removed ${formatCount(removed.fetch, 'queued fetch job')} and ${formatCount(removed.load, 'load job')}; slices being read stop within about a second, unloaded\n`,
        );
        // _sync_runs is written by the holder of the writer lease; when one runs, it does so within moments.
        const writer = (await connection.exists(writerLeaseKey(config.redisPrefix))) === 1;
        const recorded = writer && (await waitForJob(queues.load, cancelJobId(runId)));
        process.stdout.write(
          recorded
            ? `recorded cancelled in _sync_runs (${config.db})\n`
            : 'the next process holding the writer lease (bvsync worker, sync or backfill) records it cancelled in _sync_runs\n',
        );
      } finally {
        await queues.close();
      }
    });
  });
}

async function waitForJob(queue: Queue, id: string): Promise<boolean> {
  const deadline = Date.now() + RECORD_WAIT_MS;
  while (Date.now() < deadline) {
    const state = await queue.getJobState(id);
    if (state === 'completed') return true;
    if (state === 'failed' || state === 'unknown') return false;
    await sleep(RECORD_POLL_MS);
  }
  return false;
}
