import { CommanderError } from 'commander';
import { loadProcessSettings } from '../config/load.js';
import { redactSecrets } from '../log.js';
import { replyAdvice } from '../engine/redis/redis-server-kind.js';
import { EXIT_DONE, EXIT_NOT_DONE, EXIT_USAGE } from './exit-codes.js';
import { errnoOf, errorMessage } from '../format.js';

/** An error whose message is meant for the person at the terminal, with the exit code to end with (see exit-codes.ts). */
export class UsageError extends Error {
  readonly code = 'usage';
  constructor(
    message: string,
    readonly exitCode = EXIT_USAGE,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'UsageError';
  }
}

/**
 * A port or `--host` that cannot be listened on is the user's to change (exit 2, naming the option); other failures to
 * start a server are passed on as they are (test/cli/listen-errors.int.test.ts).
 */
export function listenError(error: unknown, option: string, port: number, host?: string): unknown {
  const code = errnoOf(error);
  if (host !== undefined && (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EADDRNOTAVAIL'))
    return new UsageError(
      `--host ${host} is not an address of this machine (${code}); use 127.0.0.1, 0.0.0.0 or one of its interfaces`,
    );
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return error;
  const why = code === 'EADDRINUSE' ? 'another program uses it' : 'this user may not listen on it';
  return new UsageError(`${option} ${port} cannot be listened on (${code}: ${why}); pick another port`);
}

/** Error codes that mean the command line or the config is wrong, not the run or its surroundings. */
const USAGE_CODES = new Set([
  'usage',
  'config_invalid',
  'bad_day',
  'unknown_stream',
  'bad_port',
  'database_unusable',
  'other_warehouse',
  'other_warehouse_file',
  'promote_invalid',
]);

/** Whether `BVSYNC_DEBUG` asks for stacks; an environment that fails its own check is the error being reported. */
function debugWanted(): boolean {
  try {
    return loadProcessSettings().debug;
  } catch {
    return false;
  }
}

/**
 * Prints a failed command's message and returns its exit code; an error without a `code` is a bug of bvsync's, whose
 * stack BVSYNC_DEBUG prints too. Commander has printed its own message (or its help or version, which exit 0).
 */
export function reportFailure(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === EXIT_DONE ? EXIT_DONE : EXIT_USAGE;
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  const known = typeof code === 'string';
  const message = errorMessage(error);
  // A Redis refusal that reveals the topology (a replica's READONLY, a Cluster's MOVED) says what to configure.
  const advice = error instanceof Error ? replyAdvice(message) : undefined;
  process.stderr.write(`bvsync: ${redactSecrets(advice ? `${message}\n  ${advice}` : message)}\n`);
  if (!known && error instanceof Error && error.stack && debugWanted())
    process.stderr.write(`${redactSecrets(error.stack)}\n`);
  if (error instanceof UsageError) return error.exitCode;
  return known && USAGE_CODES.has(code) ? EXIT_USAGE : EXIT_NOT_DONE;
}
