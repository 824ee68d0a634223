import { redactSecrets } from '../log.js';

/** An error whose message is meant for the person at the terminal, with the exit code to end with. */
export class UsageError extends Error {
  readonly code = 'usage';
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Prints one clear message for a failed command and returns the exit code. Known errors (with a `code`)
 * print their message alone; anything else also prints its stack, since it is a bug of bvsync's.
 */
export function reportFailure(error: unknown): number {
  const known = error instanceof Error && typeof (error as { code?: unknown }).code === 'string';
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`bvsync: ${redactSecrets(message)}\n`);
  if (!known && error instanceof Error && error.stack && process.env.BVSYNC_DEBUG) {
    process.stderr.write(`${redactSecrets(error.stack)}\n`);
  }
  return error instanceof UsageError ? error.exitCode : 1;
}
