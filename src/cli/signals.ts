import { EXIT_NOT_DONE } from './exit-codes.js';

/** Calls `handler` on the first SIGINT or SIGTERM; returns the disarm. */
export function onStopSignal(handler: (signal: NodeJS.Signals) => void): () => void {
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** Resolves on the first SIGINT or SIGTERM: a serving command runs until then. */
export function stopSignal(): Promise<void> {
  return new Promise((resolve) => onStopSignal(() => resolve()));
}

/**
 * Ctrl-C (or SIGTERM) during `plan` or `apply` ends the command at once with exit 1 and a line saying what it leaves.
 * Safe: the next apply plans from what the brand then has (docs/managing.md "Applying again"). Returns the disarm.
 */
export function endOnInterrupt(whatItLeaves: string): () => void {
  return onStopSignal((signal) => {
    process.stderr.write(`bvsync: interrupted by ${signal}; ${whatItLeaves}\n`);
    process.exit(EXIT_NOT_DONE);
  });
}
