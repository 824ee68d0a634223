import { EXIT_NOT_DONE } from './exit-codes.js';

/**
 * Ctrl-C (or SIGTERM) during `plan` or `apply` ends the command at once with exit 1 (docs/syncing.md "Exit codes":
 * interrupted) and a line saying what it leaves, instead of node's silent 130. Ending at once is safe: a request in
 * flight was either written or not, and the next apply plans from what the brand then has, so it writes each item
 * once (docs/managing.md "Applying again"). Returns the disarm.
 */
export function endOnInterrupt(whatItLeaves: string): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`bvsync: interrupted by ${signal}; ${whatItLeaves}\n`);
    process.exit(EXIT_NOT_DONE);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
