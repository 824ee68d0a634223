import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readiness } from '../engine/jobs/readiness.js';
import type { Logger } from '../log.js';
import type { PrometheusMetrics } from './prometheus-metrics.js';

export interface MetricsServerOptions {
  metrics: PrometheusMetrics;
  /** Port to listen on; 0 picks a free one (tests). */
  port: number;
  /** Interface to listen on; default `0.0.0.0` so a Prometheus on another host (or container) can scrape it. */
  host?: string;
  log?: Logger;
  /** What `GET /readyz` reports; default: ready whenever the server answers. */
  readiness?: () => Promise<Readiness>;
}

export interface RunningMetricsServer {
  /** `http://host:port/metrics`, with 127.0.0.1 for a server on every interface: an address to open here. */
  url: string;
  /** The interface and port it listens on (`0.0.0.0:9464`), which `url` does not say for every interface. */
  listening: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` for Prometheus, and the probes of docs/operations.md: `/healthz` 200 while the event loop
 * answers, `/readyz` 200 or 503 with its checks as JSON (test/ops/health.int.test.ts).
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<RunningMetricsServer> {
  const host = options.host ?? '0.0.0.0';
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) =>
      response.writeHead(status, { 'content-type': type }).end(body);
    const json = (status: number, body: unknown) => send(status, 'application/json', `${JSON.stringify(body)}\n`);
    if (request.method === 'GET' && path === '/healthz') return send(200, 'text/plain', 'ok\n');
    if (request.method === 'GET' && path === '/readyz') {
      const readiness = options.readiness?.() ?? Promise.resolve({ ready: true, checks: {} });
      readiness.then(
        (answer) => json(answer.ready ? 200 : 503, answer),
        (error: Error) => json(503, { ready: false, checks: { process: { ok: false, detail: error.message } } }),
      );
      return;
    }
    if (request.method !== 'GET' || path !== '/metrics')
      return send(404, 'text/plain', 'not found: metrics are at /metrics, probes at /healthz and /readyz\n');
    options.metrics.expose().then(
      (text) => send(200, options.metrics.registry.contentType, text),
      (error: Error) => {
        options.log?.warn({ err: error.message }, 'metrics scrape failed');
        send(500, 'text/plain', `metrics unavailable: ${error.message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/metrics`,
    listening: `${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
