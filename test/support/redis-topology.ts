import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { freePort } from '../../src/engine/redis/redis.js';
import { until } from './until.js';

/**
 * Real redis-server processes on free ports of 127.0.0.1 for the topology tests: servers, replicas, Sentinels, Cluster
 * nodes, TLS. Each lives in a folder of its own; `stopAll` ends every process this file started, by its own pid.
 */

export const HAVE_REDIS_SERVER = spawnSync('redis-server', ['--version']).status === 0;
export const HAVE_REDIS_CLI = spawnSync('redis-cli', ['--version']).status === 0;

export interface TestServer {
  port: number;
  url: string;
  dir: string;
  /** SIGKILL, as a crashed host. */
  kill(): Promise<void>;
  /** SIGSTOP, as a frozen host: connections are accepted and never answered. `kill` and `stopAll` still end it. */
  freeze(): void;
}

const started = new Set<ChildProcess>();
const folders = new Set<string>();

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A redis-server with `args` beside the usual (no persistence, 127.0.0.1), answering PING before it returns. */
export async function startServer(
  args: string[] | ((port: number) => string[]) = [],
  options: { config?: string; ping?: (port: number) => Promise<boolean> } = {},
): Promise<TestServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bvsync-topo-'));
  folders.add(dir);
  const configFile = join(dir, 'redis.conf');
  writeFileSync(configFile, options.config ?? '');
  const child = spawn(
    'redis-server',
    [
      configFile,
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--logfile',
      join(dir, 'log'),
      ...(typeof args === 'function' ? args(port) : args),
    ],
    {
      stdio: 'ignore',
    },
  );
  started.add(child);
  const ping = options.ping ?? ((at: number) => pings(`redis://127.0.0.1:${at}`));
  await until(
    `redis-server on port ${port}`,
    async () => {
      if (child.exitCode !== null)
        throw new Error(`redis-server on port ${port} exited at start (code ${child.exitCode}); see ${dir}/log`);
      return ping(port);
    },
    15_000,
    50,
  );
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    freeze: () => child.kill('SIGSTOP'),
  };
}

/** Whether a plain connection to `url` gets PONG. */
export async function pings(url: string, options: RedisOptions = {}): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
    ...options,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** A replica of `master`, caught up with it. */
export async function startReplica(master: TestServer): Promise<TestServer> {
  const replica = await startServer(['--replicaof', '127.0.0.1', String(master.port)]);
  await until(
    'the replica to be in sync',
    async () => /master_link_status:up/.test(await info(replica.url, 'replication')),
    15_000,
  );
  return replica;
}

/** Sentinels watching `master` under `name`, each knowing the others, with a quick failover. */
export async function startSentinels(master: TestServer, name: string, count = 3): Promise<TestServer[]> {
  const sentinels: TestServer[] = [];
  const quorum = Math.floor(count / 2) + 1;
  for (let index = 0; index < count; index++) {
    const config = [
      `sentinel monitor ${name} 127.0.0.1 ${master.port} ${quorum}`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
    ].join('\n');
    sentinels.push(await startServer(['--sentinel'], { config }));
  }
  await until(
    'the Sentinels to see each other',
    async () => {
      for (const sentinel of sentinels) {
        const fields = await sentinelMaster(sentinel, name);
        if (Number(fields.get('num-other-sentinels') ?? 0) < count - 1 || Number(fields.get('num-slaves') ?? 0) < 1)
          return false;
      }
      return true;
    },
    30_000,
    100,
  );
  return sentinels;
}

async function sentinelMaster(sentinel: TestServer, name: string): Promise<Map<string, string>> {
  const redis = new Redis(sentinel.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    const list = (await redis.call('SENTINEL', 'MASTER', name)) as string[];
    const fields = new Map<string, string>();
    for (let i = 0; i + 1 < list.length; i += 2) fields.set(list[i]!, list[i + 1]!);
    return fields;
  } catch {
    return new Map();
  } finally {
    redis.disconnect();
  }
}

/** The master's port the Sentinel names (SENTINEL get-master-addr-by-name). */
export async function masterPortOf(sentinel: TestServer, name: string): Promise<number | undefined> {
  const redis = new Redis(sentinel.url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    const address = (await redis.call('SENTINEL', 'get-master-addr-by-name', name)) as [string, string] | null;
    return address ? Number(address[1]) : undefined;
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

export async function info(url: string, section: string): Promise<string> {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    return await redis.info(section);
  } catch {
    return '';
  } finally {
    redis.disconnect();
  }
}

/** Three masters in cluster mode, every slot assigned, the cluster `ok`. */
export async function startCluster(masters = 3): Promise<TestServer[]> {
  const nodes: TestServer[] = [];
  for (let index = 0; index < masters; index++) {
    nodes.push(
      await startServer([
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '2000',
      ]),
    );
  }
  const create = spawnSync(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
  await until(
    'the cluster to be ok on every node',
    async () => {
      for (const node of nodes) if (!/cluster_state:ok/.test(await clusterInfo(node.url))) return false;
      return true;
    },
    30_000,
    100,
  );
  return nodes;
}

async function clusterInfo(url: string): Promise<string> {
  const redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    return String(await redis.call('CLUSTER', 'INFO'));
  } catch {
    return '';
  } finally {
    redis.disconnect();
  }
}

/**
 * A certificate authority and a server certificate it signed for 127.0.0.1 (IP and DNS names), made with openssl in
 * `dir`: what a managed Redis's TLS looks like to a client that must be given the authority.
 */
export function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const ca = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca.key');
  const cert = join(dir, 'server.pem');
  const key = join(dir, 'server.key');
  const csr = join(dir, 'server.csr');
  const ext = join(dir, 'server.ext');
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  const run = (args: string[]) => {
    const result = spawnSync('openssl', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=bvsync test CA',
    '-keyout',
    caKey,
    '-out',
    ca,
  ]);
  run(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', csr]);
  run([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    ext,
    '-out',
    cert,
  ]);
  return { ca, cert, key };
}

export function tempFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bvsync-topo-'));
  folders.add(dir);
  return dir;
}

/** Ends every redis-server this file started and removes their folders. */
export async function stopAll(): Promise<void> {
  for (const child of started) child.kill('SIGKILL');
  await Promise.all([...started].map(exited));
  started.clear();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.clear();
}
