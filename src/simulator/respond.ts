import type { ServerResponse } from 'node:http';
import type { FaultKind } from './knobs.js';

/**
 * Sends a JSON body, or breaks the sending the way a fault asks: `truncated` announces the full length and
 * closes half-way; `stall` sends half, holds the connection for stallMs, then closes it.
 */
export function sendBody(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string>,
  fault: FaultKind | undefined,
  stallMs: number,
  stalls: Set<NodeJS.Timeout>,
): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(bytes.length),
    ...headers,
  });
  if (fault === 'truncated' || fault === 'stall') {
    res.flushHeaders();
    res.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))));
    if (fault === 'truncated') {
      // Let the first half reach the client before the connection goes.
      setImmediate(() => res.socket?.destroy());
      return;
    }
    const timer = setTimeout(() => {
      stalls.delete(timer);
      res.socket?.destroy();
    }, stallMs);
    stalls.add(timer);
    return;
  }
  res.end(bytes);
}
