import type { RunStatus } from '../vocabulary.js';

/**
 * How every bvsync command ends, defined once and printed by `bvsync --help` (docs/syncing.md "Exit codes"):
 * 0 done; 1 the run did not finish done (a slice failed, it was cancelled, lost from Redis or interrupted) or the
 * command could not do its work (an API or Redis that fails, a working file another program holds); 2 the command
 * line, the config or the setup it names is wrong (a database path that cannot be used, a key the API refuses), and
 * nothing was started.
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
`;

/**
 * The exit code of a `sync` or `backfill` that waited on its run: 0 only when it finished without a failed slice and
 * with a slice complete in every stream of a brand that has incomplete ones (`streamsNothingComplete` names those that
 * have none); `failedSlices` counts a stream that planned nothing for a brand (a PlanGap) as one. A stream whose every
 * slice is incomplete read an API it cannot check (pages numbered from 0, records of another type, counts it cannot
 * trust): ending 0, it passed for done in a script while its tables were empty, because another stream's one slice
 * (the competitors list) was complete.
 */
export function exitCodeOfRun(
  status: RunStatus,
  failedSlices: number,
  streamsNothingComplete: readonly string[],
): number {
  if (status === 'complete') return failedSlices > 0 ? EXIT_NOT_DONE : EXIT_DONE;
  if (status === 'incomplete') return failedSlices > 0 || streamsNothingComplete.length > 0 ? EXIT_NOT_DONE : EXIT_DONE;
  return EXIT_NOT_DONE;
}
