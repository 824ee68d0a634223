import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../jobs/redis.js';

const REPO = join(import.meta.dirname, '..', '..');

/** The API as bvsync reads it; Prism mocks it. */
export const OPENAPI_DOCUMENT = join(REPO, 'docs', 'openapi.yaml');

/** Any key passes Prism's security check as long as the X-API-Key header is there. */
export const PRISM_API_KEY = 'bvk_prism_fuzz_key';

export interface PrismOptions {
  /**
   * Seed of Prism's random data (`prism mock -d --seed`). Prism re-seeds json-schema-faker with it before every
   * answer, so with a seed each operation answers the same body to every request (whatever its query or page) and
   * different seeds give different bodies. Without one, every answer is new and a failure cannot be replayed.
   */
  seed?: string;
  /** How long to wait for Prism to answer its first request; default 30 s (it loads in 2-5 s on an idle box). */
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
  const port = await freePort();
  const args = [prismBin(), 'mock', '--dynamic', '--host', '127.0.0.1', '--port', String(port), '--verboseLevel', 'warn', '--cors', 'false'];
  if (options.seed !== undefined) args.push('--seed', options.seed);
  args.push(OPENAPI_DOCUMENT);
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
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

  const stop = async () => {
    if (gone) return;
    child.kill('SIGTERM');
    const killed = await Promise.race([exited.then(() => true), sleep(3_000).then(() => false)]);
    if (!killed) {
      child.kill('SIGKILL');
      await exited;
    }
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  let delay = 50;
  for (;;) {
    if (gone) throw new Error(`Prism exited before it answered (port ${port}):\n${output}`);
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
      throw new Error(`Prism did not answer within ${options.startTimeoutMs ?? 30_000} ms (port ${port}):\n${output}`);
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 500);
  }
  return { url, apiKey: PRISM_API_KEY, pid: child.pid!, output: () => output, stop };
}
