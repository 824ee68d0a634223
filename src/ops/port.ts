/** A port flag that is no port; the CLI ends with its usage exit code (src/cli/fail.ts). */
class BadPortError extends Error {
  readonly code = 'bad_port';
  constructor(flag: string, text: string) {
    super(`${flag} "${text}" is not a port number (0 to 65535)`);
    this.name = 'BadPortError';
  }
}

/** A `--port`-like flag: a whole number from 0 (any free port) to 65535. */
export function parsePort(text: string, flag: string): number {
  const port = Number(text);
  if (!(/^\d+$/.test(text.trim()) && Number.isInteger(port) && port >= 0 && port <= 65_535))
    throw new BadPortError(flag, text);
  return port;
}
