import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/engine/redis/redis.js';

const REPO = join(import.meta.dirname, '..', '..');

/** The API as bvsync reads it; Prism mocks it. */
export const OPENAPI_DOCUMENT = join(REPO, 'docs', 'openapi.yaml');

/** Any key passes Prism's security check as long as the X-API-Key header is there. */
export const PRISM_API_KEY = 'bvk_prism_fuzz_key';

export interface PrismOptions {
  /**
   * Seed of Prism's random data. Without one, every answer is new and a failure cannot be replayed. See `seedEach`.
   */
  seed?: string;
  /**
   * How the seed is applied; default `request`. Prism re-seeds json-schema-faker before every answer, so its global
   * `--seed` makes each operation answer the same body to every request, whatever its query or page (and a seed
   * whose first draws are empty arrays gives empty answers everywhere). With `request`, a proxy in front of Prism
   * sends each request with Prism's per-request seed (`Prefer: seed=...`), derived from the seed, the method and
   * the URL: each distinct request gets its own body, and the same request always the same body, in any order.
   * `global` passes `--seed` to Prism instead.
   */
  seedEach?: 'request' | 'global';
  /**
   * Make `info.page` and `info.page_size` of every answer echo the `page` and `page_size` asked for; default false.
   * Prism answers random ones, which bvsync rightly refuses (a wrong page echo is how a wrong `api.params.page`
   * shows), so without the echo no paged stream gets past its first page; with it, Prism's random records reach the
   * loader. Everything else stays Prism's.
   */
  echoPaging?: boolean;
  /** How long to wait for Prism to answer its first request; default 60 s (it loads in 2 s on an idle box, 11 s on a loaded one). */
  startTimeoutMs?: number;
}

export interface RunningPrism {
  /** Base URL: the API is under `${url}/customer/v1`. */
  url: string;
  apiKey: string;
  pid: number;
  /** What Prism printed (its request log is off: only warnings and errors). */
  output(): string;
  /** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. Safe to call twice. */
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A test runner that dies leaves no Prism behind: every child still running is killed on the way out. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
}

function prismBin(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@stoplight/prism-cli/package.json');
  const { bin } = require('@stoplight/prism-cli/package.json') as { bin: { prism: string } };
  return join(dirname(manifest), bin.prism);
}

/**
 * Starts Prism's dynamic mock (`prism mock -d`) of docs/openapi.yaml on 127.0.0.1 and a free port, and waits until
 * it answers a request. The caller must `stop()` it (an exit hook kills it if the process dies first).
 */
export async function startPrism(options: PrismOptions = {}): Promise<RunningPrism> {
  installExitHook();
  // The free port is found before Prism binds it, so another process can take it in between: try another one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPrismOnce(options, await freePort());
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= 3) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startPrismOnce(options: PrismOptions, port: number): Promise<RunningPrism> {
  const args = [
    prismBin(),
    'mock',
    '--dynamic',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--verboseLevel',
    'warn',
    '--cors',
    'false',
  ];
  const seedEachRequest = options.seed !== undefined && (options.seedEach ?? 'request') === 'request';
  if (options.seed !== undefined && !seedEachRequest) args.push('--seed', options.seed);
  args.push(OPENAPI_DOCUMENT);
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  children.add(child);
  let output = '';
  const keep = (data: Buffer) => {
    // Bounded: a chatty mock must not fill the test's memory.
    output = (output + data.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => children.delete(child));
  let gone = false;
  void exited.then(() => (gone = true));

  let proxy: Proxy | undefined;
  const stop = async () => {
    await proxy?.close();
    if (gone) return;
    child.kill('SIGTERM');
    const killed = await Promise.race([exited.then(() => true), sleep(3_000).then(() => false)]);
    if (!killed) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  let delay = 50;
  for (;;) {
    if (gone) {
      const message = `Prism exited before it answered (port ${port}):\n${output}`;
      throw /EADDRINUSE/.test(output) ? new PortTakenError(message) : new Error(message);
    }
    try {
      const response = await fetch(`${url}/customer/v1/brands/1/competitors`, {
        headers: { 'x-api-key': PRISM_API_KEY },
        signal: AbortSignal.timeout(2_000),
      });
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Prism did not answer within ${options.startTimeoutMs ?? 60_000} ms (port ${port}):\n${output}`);
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 500);
  }
  if (seedEachRequest || options.echoPaging) {
    try {
      proxy = await startProxy(port, seedEachRequest ? options.seed : undefined, options.echoPaging ?? false);
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return { url: proxy?.url ?? url, apiKey: PRISM_API_KEY, pid: child.pid!, output: () => output, stop };
}

interface Proxy {
  url: string;
  close(): Promise<void>;
}

/** Prism's per-request seed for one request: a hash, so that it is a plain token in the Prefer header. */
export function requestSeed(seed: string, method: string, url: string): string {
  return createHash('sha256').update(`${seed}\n${method}\n${url}`).digest('hex').slice(0, 24);
}

/**
 * Forwards every request to Prism on `targetPort`, with `Prefer: seed=<requestSeed>` added when there is a seed, and
 * with the paging echo of successful answers set to what was asked when `echoPaging`.
 */
async function startProxy(targetPort: number, seed: string | undefined, echoPaging: boolean): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const headers =
      seed === undefined
        ? req.headers
        : { ...req.headers, prefer: `seed=${requestSeed(seed, req.method ?? 'GET', req.url ?? '/')}` };
    const upstream = httpRequest(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers },
      (answer) => {
        const status = answer.statusCode ?? 502;
        if (!echoPaging || status < 200 || status >= 300) {
          res.writeHead(status, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = withPagingEcho(
            Buffer.concat(chunks).toString('utf8'),
            new URL(req.url ?? '/', 'http://proxy').searchParams,
          );
          res.writeHead(status, { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) });
          res.end(body);
        });
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`Prism proxy: Prism did not answer: ${error.message}`);
    });
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** The answer with `info.page` / `info.page_size` set to the request's `page` / `page_size` (bvsync's default names). */
function withPagingEcho(text: string, query: URLSearchParams): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  const info = (body as { info?: unknown } | null)?.info;
  if (typeof info !== 'object' || info === null || Array.isArray(info)) return text;
  const echo = info as Record<string, unknown>;
  for (const name of ['page', 'page_size']) {
    const asked = query.get(name);
    if (asked !== null && name in echo) echo[name] = Number(asked);
  }
  return JSON.stringify(body);
}
