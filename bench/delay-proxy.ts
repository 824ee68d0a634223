import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';

/** A TCP proxy on 127.0.0.1 that adds a fixed delay to every round trip, as a link to a distant Redis would. */
export interface DelayProxy {
  /** `redis://127.0.0.1:<port>`: the proxy's address, to use as REDIS_URL. */
  url: string;
  close(): Promise<void>;
}

export interface DelayProxyOptions {
  /**
   * A file to which each chunk a client sends is appended as one line: the time (ms since the epoch), the connection's
   * number, and the names of the commands in it, to find where a run waits on Redis.
   */
  logFile?: string;
}

/**
 * Forwards each connection to `target`, holding what the client sends for `delayMs` before passing it on (answers come
 * back at once), so each request-answer exchange takes `delayMs` longer: `tc netem delay` on the client's side, in
 * user space. Order is kept: every chunk waits the same time, and timers of equal delay fire in the order set.
 */
export async function startDelayProxy(
  target: { host: string; port: number },
  delayMs: number,
  options: DelayProxyOptions = {},
): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    const number = ++connections;
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      if (options.logFile) {
        const at = Date.now();
        appendFileSync(options.logFile, `${at} ${number} ${commandNames(chunk).join(',')}\n`);
      }
      if (delayMs > 0) setTimeout(() => upstream.write(chunk), delayMs);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the delay proxy has no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The command names of the RESP arrays that start in `chunk` (`*<n>\r\n$<len>\r\nNAME`); for EVALSHA, the script's
 * first key's last part is added, which names BullMQ's script. A chunk split mid-command yields what it holds.
 */
function commandNames(chunk: Buffer): string[] {
  const text = chunk.toString('latin1');
  const names: string[] = [];
  const pattern = /\*(\d+)\r\n\$\d+\r\n([A-Za-z]+)\r\n/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    names.push((match[2] ?? '').toUpperCase());
  }
  return names;
}
