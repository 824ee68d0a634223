import { Command as CommanderCommand, type Command } from 'commander';

export interface CommandEntry {
  name: string;
  /** How `bvsync --help` lists it, and what it says of it: the command's own, kept equal by test/cli/help.int.test.ts. */
  term: string;
  description: string;
  /** The command's module, imported when the command runs: its factory. */
  load(): Promise<() => Command>;
}

/**
 * Every command of `bvsync`, one file each, in the order of `bvsync --help`. A command's module is imported only when
 * it runs, so no command pays for the others' start (bench/cli-start.ts).
 */
export const commands: readonly CommandEntry[] = [
  {
    name: 'demo',
    term: 'demo [options]',
    description: 'Start a simulator, backfill it into a local DuckDB file, publish it and show what was loaded',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  {
    name: 'sync',
    term: 'sync [options]',
    description: 'Sync now: the days since each stream last completed, plus the lookback days again',
    load: async () => (await import('./sync.js')).syncCommand,
  },
  {
    name: 'backfill',
    term: 'backfill [options]',
    description: 'Fetch every slice of a window (both days included); leave the incremental schedule where it is',
    load: async () => (await import('./backfill.js')).backfillCommand,
  },
  {
    name: 'worker',
    term: 'worker [options]',
    description: 'Run a long-lived worker: fetch slices, and load DuckDB while holding the writer lease',
    load: async () => (await import('./worker.js')).workerCommand,
  },
  {
    name: 'scheduler',
    term: 'scheduler [options]',
    description:
      "Enqueue runs on the config's cron schedules (UTC); any number may run, each tick becomes one run; `bvsync worker` runs them",
    load: async () => (await import('./scheduler.js')).schedulerCommand,
  },
  {
    name: 'status',
    term: 'status [options]',
    description:
      'Show unfinished and recent runs, queue counts, freshness per brand and stream, and slices not complete with their API error codes',
    load: async () => (await import('./status.js')).statusCommand,
  },
  {
    name: 'cancel',
    term: 'cancel [options] <run>',
    description:
      'Drop an unfinished run: remove its queued jobs (running ones finish) and record it cancelled; bvsync status lists run ids',
    load: async () => (await import('./cancel.js')).cancelCommand,
  },
  {
    name: 'adopt-warehouse',
    term: 'adopt-warehouse [options]',
    description:
      "Make the working file of BVSYNC_DB the Redis prefix's warehouse on purpose (a new file, or another disk's): writers stop refusing it",
    load: async () => (await import('./adopt-warehouse.js')).adoptWarehouseCommand,
  },
  {
    name: 'rate',
    term: 'rate [options]',
    description:
      'Show the rate the API key runs at and why (configured, stated by the API, learned from 429s), kept in Redis for a day; --reset forgets it',
    load: async () => (await import('./rate.js')).rateCommand,
  },
  {
    name: 'dashboard',
    term: 'dashboard [options]',
    description: "Serve Bull Board (the BullMQ UI) for bvsync's queues: jobs by state, their data, errors and retries",
    load: async () => (await import('./dashboard.js')).dashboardCommand,
  },
  {
    name: 'doctor',
    term: 'doctor [options]',
    description:
      'Check the config, Redis, that the API answers, that the key reads each brand, and every query parameter name bvsync sends',
    load: async () => (await import('./doctor.js')).doctorCommand,
  },
  {
    name: 'sql',
    term: 'sql [options] [query]',
    description:
      'Run SQL on the published warehouse (read-only) and print the result of every statement that returns rows, each under a heading when there are several',
    load: async () => (await import('./sql.js')).sqlCommand,
  },
  {
    name: 'verify',
    term: 'verify [options]',
    description:
      "Compare the warehouse with the API's own range answers (answers, visibility per topic and engine, tracked URL citations, citation totals, product ranks) and name the days to backfill again",
    load: async () => (await import('./verify.js')).verifyCommand,
  },
  {
    name: 'export',
    term: 'export [options]',
    description:
      'Write tables (and views, when named) of the published warehouse to Parquet or CSV files, one per table',
    load: async () => (await import('./export.js')).exportCommand,
  },
  {
    name: 'report',
    term: 'report [options]',
    description: 'Write a self-contained HTML page of charts for analysts from the published database (works offline)',
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    name: 'simulate',
    term: 'simulate [options]',
    description: 'Serve a local, deterministic twin of the Brand Visibility Customer API v1',
    load: async () => (await import('./simulate.js')).simulateCommand,
  },
  {
    name: 'config-schema',
    term: 'config-schema',
    description:
      'Print the JSON Schema of bvsync.config.json, for editors: npx bvsync config-schema > bvsync.schema.json',
    load: async () => (await import('./config-schema.js')).configSchemaCommand,
  },
  {
    name: 'plan',
    term: 'plan [options] [file]',
    description:
      'Show what apply would do to a brand: each tracked URL, topic, competitor, persona and tag to create, change, restore, or that the API would reject and why; writes nothing',
    load: async () => (await import('./plan.js')).planCommand,
  },
  {
    name: 'apply',
    term: 'apply [options] [file]',
    description:
      "Bring a brand to its desired state: plan, then write in batches within the API's limits, each once (idempotency keys); exit 1 when an item was rejected",
    load: async () => (await import('./apply.js')).applyCommand,
  },
  {
    name: 'manage-schema',
    term: 'manage-schema',
    description:
      'Print the JSON Schema of the desired-state files of plan and apply, for editors: npx bvsync manage-schema > bvsync.manage.schema.json',
    load: async () => (await import('./manage-schema.js')).manageSchemaCommand,
  },
];

/** Stand-ins for the list of `bvsync --help`, which then imports no command; each lists as its command does. */
export function listedCommands(): Command[] {
  return commands.map((entry) =>
    Object.assign(new CommanderCommand(entry.name).description(entry.description), { listedAs: entry.term }),
  );
}

/** Every command's factory, in the order of the help. */
export function loadCommands(): Promise<Array<() => Command>> {
  return Promise.all(commands.map((entry) => entry.load()));
}
