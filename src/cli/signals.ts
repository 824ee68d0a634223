import { EXIT_NOT_DONE } from './exit-codes.js';

/**
 * Calls `handler` on the first SIGINT or SIGTERM, once; returns the disarm. The first disarms both, so a second signal
 * of either kind finds no listener and ends the process at once (test/cli/signals.int.test.ts).
 */
export function onStopSignal(handler: (signal: NodeJS.Signals) => void): () => void {
  const disarm = () => {
    process.off('SIGINT', first);
    process.off('SIGTERM', first);
  };
  const first = (signal: NodeJS.Signals) => {
    disarm();
    handler(signal);
  };
  process.on('SIGINT', first);
  process.on('SIGTERM', first);
  return disarm;
}

/** How long a command that is done (a stopped worker, a finished sync) may linger on open handles before it exits. */
export const LINGER_LIMIT_MS = 5_000;

/** Resolves on the first SIGINT or SIGTERM: a serving command runs until then. */
export function stopSignal(): Promise<void> {
  return new Promise((resolve) => onStopSignal(() => resolve()));
}

/**
 * Ctrl-C (or SIGTERM) during `plan`, `apply` or `export` ends the command at once with exit 1 and a line saying what it
 * leaves, after `cleanUp`. test/cli/signals.int.test.ts, test/warehouse/cli.int.test.ts. Returns the disarm.
 */
export function endOnInterrupt(whatItLeaves: string, cleanUp?: () => void): () => void {
  return onStopSignal((signal) => {
    cleanUp?.();
    process.stderr.write(`bvsync: interrupted by ${signal}; ${whatItLeaves}\n`);
    process.exit(EXIT_NOT_DONE);
  });
}
