import { setTimeout as sleep } from 'node:timers/promises';
import { CronExpressionParser } from 'cron-parser';
import cron, { type ScheduledTask } from 'node-cron';
import { cronProblem } from '../../config/cron-check.js';
import { ConfigError } from '../../config/load.js';
import type { Logger } from '../../log.js';
import { connectRedis } from '../redis/redis.js';
import { logRedisOutages } from '../redis/redis-fault-watch.js';
import { RedisRunCoordinator } from './run-coordinator.js';
import { RunStore } from '../run/run-store.js';
import { enqueueRun } from '../run/start-run.js';
import { redisKeys } from '../../redis-keys.js';
import { openQueues } from '../jobs/queues.js';
import { requestQuotaOf, resumeEachWindow } from '../fetch/quota-parking.js';
import { scheduleStreams, type Config, type ScheduleConfig } from '../../configuration.js';
import { DAY_MS, utcDayOf, type DayClock } from '../../days.js';

export interface SchedulerOptions {
  config: Config;
  redisUrl: string;
  log: Logger;
  /** The clock, for tests; default the real one. */
  now?: () => Date;
  /** The day a run takes as today (`BVSYNC_TODAY` through the CLI); default its slot's UTC day. */
  today?: DayClock;
}

export interface RunningScheduler {
  /** The run ids enqueued so far by this process (ticks and catch-ups). */
  enqueued: string[];
  stop(): Promise<void>;
}

/**
 * The run id of a schedule's slot: every scheduler computes the same one, so a slot is one run however many fire.
 * To the second, because node-cron takes 6-field expressions and each second's tick is its own slot.
 */
export function scheduledRunId(schedule: string, slot: Date): string {
  return `scheduled-${schedule}-${slot.toISOString().slice(0, 19).replace(/[-:]/g, '')}`;
}

/** The config schema checks the same (src/config/cron-check.ts); this guards a Config built without parsing it. */
export function validateSchedules(schedules: ScheduleConfig[]): void {
  const problems = schedules.flatMap((schedule, index) => {
    const problem = cronProblem(schedule.cron);
    return problem ? [`schedules[${index}].cron: "${schedule.cron}" is not a valid cron expression (${problem})`] : [];
  });
  if (problems.length) throw new ConfigError('the config', problems);
}

/** Tries of a tick's enqueue, a growing wait apart (1, 2 s...): the slot's claim is this process's alone. */
const TICK_ENQUEUE_ATTEMPTS = 3;
const TICK_RETRY_MS = 1_000;

/**
 * `bvsync scheduler`: one process runs each tick (the Redis run coordinator), and a slot-derived run id makes a second
 * enqueue of a slot a no-op. At start, a schedule whose last slot has no run (the scheduler was down) is caught up.
 */
export async function startScheduler(options: SchedulerOptions): Promise<RunningScheduler> {
  const { config, log } = options;
  validateSchedules(config.schedules);
  if (config.brands.length === 0)
    throw new ConfigError('the config', ['brands: the scheduler needs the brands to sync (or BVSYNC_BRANDS)']);
  const now = options.now ?? (() => new Date());
  const redis = connectRedis(options.redisUrl);
  const outage = logRedisOutages(redis, redisKeys(config.redisPrefix).heartbeat, log, 'ticks wait until Redis answers');
  const runs = new RunStore(redis, config.redisPrefix);
  const coordinator = new RedisRunCoordinator(redis, redisKeys(config.redisPrefix));
  const enqueued: string[] = [];
  // Slices that waited for the request budget go on when its next window comes (docs/quota.md).
  const quota = requestQuotaOf(config, redis, () => now().getTime());
  const queues = quota ? openQueues(redis, config.redisPrefix) : undefined;
  const stopResuming =
    quota && queues ? resumeEachWindow(redis, config.redisPrefix, queues, quota.clock, log) : undefined;

  const enqueueSlot = async (schedule: ScheduleConfig, slot: Date, why: string) => {
    const runId = scheduledRunId(schedule.name, slot);
    const { created } = await enqueueRun({
      config,
      redisUrl: options.redisUrl,
      log,
      kind: 'scheduled',
      runId,
      waitForRedis: true,
      brands: config.brands,
      streams: [...scheduleStreams(config, schedule)],
      today: options.today?.() ?? utcDayOf(slot),
    });
    if (created) {
      enqueued.push(runId);
      log.info({ schedule: schedule.name, run: runId, why }, 'run enqueued');
    }
  };

  for (const schedule of config.schedules) {
    const previous = CronExpressionParser.parse(schedule.cron, { tz: 'UTC', currentDate: now() }).prev().toDate();
    // A slot missed within the last 24 h is caught up at start (docs/syncing.md).
    const missed = now().getTime() - previous.getTime() <= DAY_MS;
    // A run recorded but never planned (its scheduler died in between) is caught up too: enqueueRun plans it.
    const recorded = await runs.get(scheduledRunId(schedule.name, previous));
    if (missed && (!recorded || recorded.status === 'planning')) {
      if (await coordinator.shouldRun(`${schedule.name}:${previous.toISOString()}`, 60_000))
        await enqueueSlot(schedule, previous, 'catch-up');
    }
  }

  let stopped = false;
  const tasks: ScheduledTask[] = config.schedules.map((schedule) => {
    const task = cron.schedule(
      schedule.cron,
      async (context) => {
        // This process won the slot, which no other scheduler will take: a Redis blip is tried again, not the slot lost.
        for (let attempt = 1; ; attempt++) {
          try {
            await enqueueSlot(schedule, context.date, 'tick');
            return;
          } catch (error) {
            const last = attempt >= TICK_ENQUEUE_ATTEMPTS;
            log[last ? 'error' : 'warn'](
              { schedule: schedule.name, attempt, err: (error as Error).message },
              last
                ? 'could not enqueue the scheduled run; the next scheduler start catches it up'
                : 'could not enqueue the scheduled run; trying again',
            );
            if (last || stopped) return;
            await sleep(TICK_RETRY_MS * attempt);
          }
        }
      },
      { name: schedule.name, timezone: 'UTC', distributed: true, runCoordinator: coordinator, noOverlap: true },
    );
    task.on('execution:skipped', (context) =>
      log.debug({ schedule: schedule.name, reason: context.reason }, 'tick run by another scheduler'),
    );
    return task;
  });
  log.info({ schedules: config.schedules.map((s) => `${s.name} (${s.cron})`) }, 'scheduler started');

  return {
    enqueued,
    stop: async () => {
      stopped = true;
      for (const task of tasks) await task.destroy();
      stopResuming?.();
      outage.stop();
      await queues?.close();
      redis.disconnect();
    },
  };
}
