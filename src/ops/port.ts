import { UsageError } from '../cli/fail.js';

/** A `--port`-like flag: a whole number from 0 (any free port) to 65535. */
export function parsePort(text: string, flag: string): number {
  const port = Number(text);
  if (!(/^\d+$/.test(text.trim()) && Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new UsageError(`${flag} "${text}" is not a port number (0 to 65535)`);
  }
  return port;
}
