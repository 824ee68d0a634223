import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, engineFixture, runBvsync, writeCliConfig, type EngineFixture } from '../support/engine.js';
import {
  HAVE_REDIS_SERVER,
  makeCertificates,
  pings,
  startServer,
  stopAll,
  tempFolder,
  type TestServer,
} from '../support/redis-topology.js';

/**
 * `rediss://` with a CA file (REDIS_CA_FILE): a backfill completes against a TLS-only redis-server whose certificate
 * a private authority signed; without the authority, or with a CA file that cannot be read, the command says which
 * setting to fix and exits 2 before anything runs.
 */

const TODAY = '2026-11-20';
/** Whether this redis-server was built with TLS (Debian's links libssl) and openssl can make certificates. */
const HAVE_TLS =
  HAVE_REDIS_SERVER &&
  spawnSync('sh', ['-c', 'ldd "$(command -v redis-server)" | grep -q libssl']).status === 0 &&
  spawnSync('openssl', ['version']).status === 0;

let server: TestServer;
let certificates: { ca: string; cert: string; key: string };
let fx: EngineFixture;

beforeAll(async () => {
  if (!HAVE_TLS) return;
  certificates = makeCertificates(tempFolder());
  const { ca, cert, key } = certificates;
  server = await startServer(
    (port) => [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--tls-cert-file',
      cert,
      '--tls-key-file',
      key,
      '--tls-ca-cert-file',
      ca,
      '--tls-auth-clients',
      'no',
    ],
    { ping: (port) => pings(`rediss://127.0.0.1:${port}`, { tls: { ca: readFileSync(ca) } }) },
  );
  fx = await engineFixture('tls', { sim: { seed: 3, brands: 1, days: 2, scale: 5, today: TODAY } });
}, 60_000);
afterAll(async () => {
  await fx?.cleanup();
  await stopAll();
});

const backfill = (env: Record<string, string>) =>
  runBvsync(
    [
      'backfill',
      '--from',
      '2026-11-19',
      '--to',
      TODAY,
      '--today',
      TODAY,
      '--streams',
      'conversations,visibility',
      '--config',
      writeCliConfig(fx),
    ],
    cliEnv(fx, env),
  );

describe.skipIf(!HAVE_TLS)('Redis over TLS (needs redis-server built with TLS, and openssl)', () => {
  it('a backfill completes through rediss:// with REDIS_CA_FILE', async () => {
    const result = await backfill({ REDIS_URL: `rediss://127.0.0.1:${server.port}`, REDIS_CA_FILE: certificates.ca });
    expect(result.code, result.stderr.slice(-3000)).toBe(0);
    expect(result.stdout).toMatch(/run backfill-\S+: complete/);
  }, 120_000);

  it('without the authority, the command says the certificate is not trusted and which setting to fix, exit 2', async () => {
    const result = await backfill({ REDIS_URL: `rediss://127.0.0.1:${server.port}` });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      new RegExp(
        `^bvsync: rediss://127\\.0\\.0\\.1:${server.port}/? *: the Redis server's TLS certificate is not trusted \\(.*certificate.*\\): set REDIS_CA_FILE \\(config "redis\\.tls\\.caFile"\\) to the PEM file of the authority that signed it$`,
      ),
    );
  }, 60_000);

  it('a CA file that cannot be read is named, exit 2', async () => {
    const missing = join(tempFolder(), 'no-such-ca.pem');
    const result = await backfill({ REDIS_URL: `rediss://127.0.0.1:${server.port}`, REDIS_CA_FILE: missing });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `bvsync: the Redis CA file ${missing} (REDIS_CA_FILE, config "redis.tls.caFile") cannot be read (ENOENT)`,
    );
  }, 60_000);
});
