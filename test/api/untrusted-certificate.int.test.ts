import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { TlsCertificateError } from '../../src/api/errors.js';
import { named } from '../support/named-client.js';
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from '../support/self-signed.js';
import { cliEnv, engineFixture, runBvsync, writeCliConfig, type EngineFixture } from '../support/engine.js';
import { collect } from './mock-api.js';
import { parseConfig } from '../../src/configuration.js';

/** An API behind a certificate the machine does not trust: the same answer every time, so said once and not retried. */
let server: Server;
let url: string;
let connections = 0;
let fx: EngineFixture;

beforeAll(async () => {
  server = createServer({ cert: SELF_SIGNED_CERT, key: SELF_SIGNED_KEY }, (_req, res) => res.end('{}'));
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fx = await engineFixture('untrusted-certificate');
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fx?.cleanup();
});

describe('an API whose TLS certificate is not trusted', () => {
  it('fails the read at its first handshake, naming the certificate, not as a network error retried', async () => {
    connections = 0;
    const client = named(
      createApiClient(
        parseConfig({ api: { url, apiKey: 'bvk_untrusted_cert_key', maxAttempts: 5, retryBaseMs: 1, retryMaxMs: 2 } })
          .api,
      ),
    );
    const error = await collect(client.conversations(1)).catch((caught: unknown) => caught);
    await client.close();
    expect(error).toBeInstanceOf(TlsCertificateError);
    expect((error as Error).message).toMatch(
      /the API's TLS certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT: .*\); check api\.url, and for a private certificate authority set NODE_EXTRA_CA_CERTS/,
    );
    expect(connections).toBe(1);
  });

  it('stops a backfill in its preflight: exit 2, saying so, after one handshake and no run planned', async () => {
    connections = 0;
    const result = await runBvsync(
      [
        'backfill',
        '--from',
        '2026-11-19',
        '--to',
        '2026-11-20',
        '--today',
        '2026-11-20',
        '--config',
        writeCliConfig(fx),
      ],
      cliEnv(fx, { BVSYNC_API_URL: url }),
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /^bvsync: GET \/customer\/v1\/brands\/\d+\/competitors: the API's TLS certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT.*nothing was planned or fetched$/m,
    );
    // The preflight's reachability check (a TCP connection) and one handshake.
    expect(connections).toBe(2);
  }, 60_000);
});
