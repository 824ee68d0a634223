import type { ServerResponse } from 'node:http';

/** A fault that breaks the sending of an answer, and the set that keeps stall timers for `close()` to clear. */
interface Breakage {
  fault: 'truncated' | 'stall';
  stallMs: number;
  stalls: Set<NodeJS.Timeout>;
}

/**
 * Sends a JSON body, or breaks the sending the way a fault asks: `truncated` announces the full length and
 * closes half-way; `stall` sends half, holds the connection for stallMs, then closes it.
 */
export function sendBody(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
  breakage?: Breakage,
): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(bytes.length),
    ...headers,
  });
  if (!breakage) return void res.end(bytes);
  res.flushHeaders();
  res.write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))));
  if (breakage.fault === 'truncated') {
    // Let the first half reach the client before the connection goes.
    setImmediate(() => res.socket?.destroy());
    return;
  }
  const timer = setTimeout(() => {
    breakage.stalls.delete(timer);
    res.socket?.destroy();
  }, breakage.stallMs);
  breakage.stalls.add(timer);
}
