import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';

/** A TCP proxy on 127.0.0.1 that adds a fixed delay to every round trip, as a link to a distant Redis would. */
export interface DelayProxy {
  /** `redis://127.0.0.1:<port>`: the proxy's address, to use as REDIS_URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * Forwards each connection to `target`, holding what the client sends for `delayMs` before passing it on (answers come
 * back at once), so each request-answer exchange takes `delayMs` longer: `tc netem delay` on the client's side, in
 * user space. Order is kept: every chunk waits the same time, and timers of equal delay fire in the order set.
 */
export async function startDelayProxy(target: { host: string; port: number }, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk) => {
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
