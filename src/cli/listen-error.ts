import { UsageError } from './fail.js';

/**
 * A port that cannot be listened on is the user's to change (exit 2, naming the option); other failures to start a
 * server are passed on as they are.
 */
export function listenError(error: unknown, option: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return error;
  const why = code === 'EADDRINUSE' ? 'another program uses it' : 'this user may not listen on it';
  return new UsageError(`${option} ${port} cannot be listened on (${code}: ${why}); pick another port`);
}
