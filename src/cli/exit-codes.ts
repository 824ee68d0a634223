import type { RunStatus } from '../vocabulary.js';

/**
 * How every bvsync command ends, printed by `bvsync --help` (docs/syncing.md "Exit codes"): 0 done; 1 the run did not
 * finish done or the command could not do its work; 2 the command line, config or setup is wrong and nothing started.
 */
export const EXIT_DONE = 0;
export const EXIT_NOT_DONE = 1;
export const EXIT_USAGE = 2;

export const EXIT_CODES_HELP = `
Exit codes:
  0  done (sync/backfill: the run finished and no slice failed)
  1  the run finished with failed slices, with a brand's stream none of whose slices is complete,
     or with a stream it could plan nothing for; was cancelled (bvsync cancel),
     was lost from Redis or interrupted;
     or the command could not do its work (API or Redis unreachable, the working file held by another program)
  2  usage or config error: a wrong option or argument, an invalid config, a missing setting, a database path
     that cannot be used, a key the API refuses; nothing was started
  130, 143  ended by SIGINT or SIGTERM itself: a second signal, a signal during start-up,
     or a command that only reads (status, sql, doctor, verify, report)
`;

/**
 * The exit code of a waited-on `sync` or `backfill`: 0 only without a failed slice (a PlanGap counts as one) and with
 * no brand's stream all incomplete (`nothingComplete`): such a stream read an API it cannot check.
 */
export function exitCodeOfRun(status: RunStatus, failedSlices: number, nothingComplete: readonly string[]): number {
  if (status === 'complete') return failedSlices > 0 ? EXIT_NOT_DONE : EXIT_DONE;
  if (status === 'incomplete') return failedSlices > 0 || nothingComplete.length > 0 ? EXIT_NOT_DONE : EXIT_DONE;
  return EXIT_NOT_DONE;
}
