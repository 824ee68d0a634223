import { Command as CommanderCommand, type Command } from 'commander';

export interface CommandEntry {
  name: string;
  /**
   * How `bvsync --help` lists it, and what it says of it: the command takes its description from here (descriptionOf);
   * test/cli/help.int.test.ts keeps the term the command's own.
   */
  term: string;
  description: string;
  /** The command's module, imported when the command runs: its factory. */
  load(): Promise<() => Command>;
}

/** A command's entry, named by the first word of its term. */
function entry(term: string, description: string, load: CommandEntry['load']): CommandEntry {
  return { name: term.split(' ')[0]!, term, description, load };
}

/**
 * Every command of `bvsync`, one file each, in the order of `bvsync --help`. A command's module is imported only when
 * it runs, so no command pays for the others' start (bench/cli-start.ts).
 */
export const commands: readonly CommandEntry[] = [
  entry(
    'demo [options]',
    'Start a simulator, backfill it into a local DuckDB file, publish it and show what was loaded',
    async () => (await import('./demo.js')).demoCommand,
  ),
  entry(
    'sync [options]',
    'Sync now: the days since each stream last completed, plus the lookback days again',
    async () => (await import('./run/sync.js')).syncCommand,
  ),
  entry(
    'backfill [options]',
    'Fetch every slice of a window (both days included); leave the incremental schedule where it is',
    async () => (await import('./run/backfill.js')).backfillCommand,
  ),
  entry(
    'worker [options]',
    'Run a long-lived worker: fetch slices, and load DuckDB while holding the writer lease',
    async () => (await import('./run/worker.js')).workerCommand,
  ),
  entry(
    'scheduler [options]',
    "Enqueue runs on the config's cron schedules (UTC); any number may run, each tick becomes one run; `bvsync worker` runs them",
    async () => (await import('./run/scheduler.js')).schedulerCommand,
  ),
  entry(
    'status [options]',
    'Show unfinished and recent runs, queue counts, freshness per brand and stream, and slices not complete with their API error codes',
    async () => (await import('./status/status.js')).statusCommand,
  ),
  entry(
    'cancel [options] <run>',
    'Drop an unfinished run: remove its queued jobs (running ones finish) and record it cancelled; bvsync status lists run ids',
    async () => (await import('./run/cancel.js')).cancelCommand,
  ),
  entry(
    'adopt-warehouse [options]',
    "Make the working file of BVSYNC_DB the Redis prefix's warehouse on purpose (a new file, or another disk's): writers stop refusing it",
    async () => (await import('./adopt-warehouse.js')).adoptWarehouseCommand,
  ),
  entry(
    'rate [options]',
    'Show the rate the API key runs at and why (configured, stated by the API, learned from 429s), kept in Redis for a day; --reset forgets it',
    async () => (await import('./status/rate.js')).rateCommand,
  ),
  entry(
    'dashboard [options]',
    "Serve Bull Board (the BullMQ UI) for bvsync's queues: jobs by state, their data, errors and retries",
    async () => (await import('./dashboard.js')).dashboardCommand,
  ),
  entry(
    'doctor [options]',
    'Check the config, Redis, that the API answers, that the key reads each brand, and every query parameter name bvsync sends',
    async () => (await import('./doctor/doctor.js')).doctorCommand,
  ),
  entry(
    'sql [options] [query]',
    'Run SQL on the published warehouse (read-only) and print the result of every statement that returns rows, each under a heading when there are several',
    async () => (await import('./read/sql.js')).sqlCommand,
  ),
  entry(
    'verify [options]',
    "Compare the warehouse with the API's own range answers (answers, visibility per topic and engine, tracked URL citations, citation totals, product ranks) and name the days to backfill again",
    async () => (await import('./read/verify.js')).verifyCommand,
  ),
  entry(
    'export [options]',
    'Write tables (and views, when named) of the published warehouse to Parquet or CSV files, one per table',
    async () => (await import('./read/export.js')).exportCommand,
  ),
  entry(
    'report [options]',
    'Write a self-contained HTML page of charts for analysts from the published database (works offline)',
    async () => (await import('./read/report.js')).reportCommand,
  ),
  entry(
    'simulate [options]',
    'Serve a local, deterministic twin of the Brand Visibility Customer API v1',
    async () => (await import('./simulate.js')).simulateCommand,
  ),
  entry(
    'config-schema',
    'Print the JSON Schema of bvsync.config.json, for editors: npx bvsync config-schema > bvsync.schema.json',
    async () => (await import('./config-schema.js')).configSchemaCommand,
  ),
  entry(
    'plan [options] [file]',
    'Show what apply would do to a brand: each tracked URL, topic, competitor, persona and tag to create, change, restore, or that the API would reject and why; writes nothing',
    async () => (await import('./manage/plan.js')).planCommand,
  ),
  entry(
    'apply [options] [file]',
    "Bring a brand to its desired state: plan, then write in batches within the API's limits, each once (idempotency keys); exit 1 when an item was rejected",
    async () => (await import('./manage/apply.js')).applyCommand,
  ),
  entry(
    'manage-schema',
    'Print the JSON Schema of the desired-state files of plan and apply, for editors: npx bvsync manage-schema > bvsync.manage.schema.json',
    async () => (await import('./manage/manage-schema.js')).manageSchemaCommand,
  ),
];

/** A command's description, its one home: the command's own help and the list of `bvsync --help` both read it. */
export function descriptionOf(name: string): string {
  return commands.find((entry) => entry.name === name)!.description;
}

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
