import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string;
  json(): any;
}

/** What the receiver answers the n-th request (1-based) with: a status, or `hang` to never answer. */
export type ReceiverAnswer = number | 'hang';

export interface WebhookReceiver {
  /** The base URL, `http://127.0.0.1:port`. */
  url: string;
  received: ReceivedRequest[];
  /** Resolves when `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real `node:http` server on a free port of 127.0.0.1 that records every request, answering as `answer` says. */
export async function startWebhookReceiver(
  answer: (nth: number) => ReceiverAnswer = () => 200,
): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        contentType: request.headers['content-type'],
        body,
        json: () => JSON.parse(body),
      });
      const reply = answer(received.length);
      for (const waiter of waiters) waiter();
      if (reply === 'hang') hanging.add(response);
      else response.writeHead(reply, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    waitFor: (count, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got ${received.length} requests, not ${count}, in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
