import { EXIT_NOT_DONE } from './exit-codes.js';

/**
 * Ctrl-C (or SIGTERM) during `plan` or `apply` ends the command at once with exit 1 and a line saying what it leaves.
 * Safe: the next apply plans from what the brand then has (docs/managing.md "Applying again"). Returns the disarm.
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
