import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { describeRedisAddress, parseRedisAddress, type RedisAddress } from '../../redis-address.js';
import { readServerFacts, RedisTopologyError, topologyProblem } from './redis-server-kind.js';
import { within } from '../../within.js';
import { errnoOf, errorMessage } from '../../format.js';

export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

/** No Redis could be had; the message says how to get one. */
export class RedisUnavailableError extends Error {
  readonly code = 'redis_unavailable';
  constructor(detail: string) {
    super(
      `no Redis answers (${detail}). Set REDIS_URL to a Redis you have, start one with ` +
        '`docker compose up -d redis`, or install redis-server (Debian: `apt-get install redis-server`).',
    );
    this.name = 'RedisUnavailableError';
  }
}

export interface ResolvedRedis {
  url: string;
  /** Where the address came from, for the first log line: `REDIS_URL`, `local` or `private`. */
  origin: 'configured' | 'local' | 'private';
  /** Stops a private redis-server started for this process; a no-op otherwise. */
  stop(): Promise<void>;
}

export interface ResolveRedisOptions {
  /** From REDIS_URL or the config; when set, it is the only one tried. */
  url?: string;
  /** The key prefix, for the advice on a Redis Cluster reached without one that fits it; default `bvsync`. */
  prefix?: string;
  /** Start a private `redis-server` from PATH when nothing answers; default true. */
  allowPrivate?: boolean;
}

/**
 * Finds the Redis to use: the configured URL, else one at 127.0.0.1:6379, else a private redis-server on a free
 * port for the life of this process (the demo on a machine with no Redis running).
 */
export async function resolveRedis(options: ResolveRedisOptions = {}): Promise<ResolvedRedis> {
  const noop = async () => {};
  if (options.url) {
    await pingRedis(options.url, { prefix: options.prefix }).catch((error: Error) => {
      throw isConfigProblem(error)
        ? error
        : new RedisUnavailableError(`${describeRedisAddress(options.url!)}: ${error.message}`);
    });
    return { url: options.url, origin: 'configured', stop: noop };
  }
  if (await answers(LOCAL_REDIS_URL)) return { url: LOCAL_REDIS_URL, origin: 'local', stop: noop };
  if (options.allowPrivate === false) throw new RedisUnavailableError(`nothing at ${LOCAL_REDIS_URL}`);
  return startPrivateRedis();
}

/** Whether a Redis answers at `url`; one that accepts and never answers is said, not passed over for a private one. */
function answers(url: string): Promise<boolean> {
  return pingRedis(url).then(
    () => true,
    (error: unknown) => {
      if (error instanceof RedisFrozenError) throw new RedisUnavailableError(`${url}: ${error.message}`);
      return false;
    },
  );
}

/** The longest wait between two reconnects of a long-lived connection (ms). */
const RECONNECT_MAX_DELAY_MS = 2_000;

/** Whether a failure to connect is the settings' (exit 2, "fix this") rather than a Redis that is away. */
export function isConfigProblem(error: unknown): boolean {
  return (
    error instanceof RedisDatabaseError ||
    error instanceof RedisTopologyError ||
    error instanceof RedisCaFileError ||
    error instanceof RedisTlsError ||
    error instanceof RedisAuthError
  );
}

/**
 * A connection as BullMQ wants it, reconnecting for ever so a worker outlives a Redis restart; Sentinel or Cluster too.
 * A Cluster works because every key is under one hash-tagged prefix (test/engine/redis-cluster.int.test.ts).
 */
export function connectRedis(address: string, extra: RedisOptions = {}): Redis {
  return openConnection(parseRedisAddress(address), {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    // CLIENT SETINFO costs a round trip on every connection, for a name in CLIENT LIST only.
    disableClientInfo: true,
    retryStrategy: (times) => Math.min(times * 50, RECONNECT_MAX_DELAY_MS),
    ...extra,
  });
}

/** How long a command that ends waits for each answer of its Redis (connectForCommand). */
const COMMAND_ANSWER_MS = 10_000;

/**
 * A connection for a command that ends (`status`, `cancel`, `rate`, `verify`) or a dashboard request: a Redis command not
 * answered in 10 s fails rather than waiting for ever on a frozen server (test/e2e/redis-frozen.int.test.ts).
 */
export function connectForCommand(address: string): Redis {
  return connectRedis(address, { commandTimeout: COMMAND_ANSWER_MS });
}

/** A Redis command that `connectForCommand`'s limit ended, as the error that says so; any other error as it is. */
export function explainFrozen(error: unknown, address: string): unknown {
  if (!isCommandTimeout(error)) return error;
  return new RedisUnavailableError(`${describeRedisAddress(address)}: ${frozenDetail(COMMAND_ANSWER_MS)}`);
}

/** A CA file (REDIS_CA_FILE, `redis.tls.caFile`) that cannot be read. */
class RedisCaFileError extends Error {
  readonly code = 'config_invalid';
  constructor(path: string, reason: string) {
    super(
      `the Redis CA file ${path} (REDIS_CA_FILE, config "redis.tls.caFile") cannot be read (${reason}): name a PEM file of the certificate authorities that signed the server's certificate`,
    );
    this.name = 'RedisCaFileError';
  }
}

/** A server that refused the user or password, or asks for one not given: a setting to fix, not a Redis that is away. */
class RedisAuthError extends Error {
  readonly code = 'config_invalid';
  constructor(where: string, reason: string) {
    super(
      `${where}: Redis refused to let this process in (${reason}): check the user and password in REDIS_URL, or REDIS_PASSWORD (config "redis.password")`,
    );
    this.name = 'RedisAuthError';
  }
}

/** A TLS server whose certificate this process does not trust: a setting to fix, not a Redis that is away. */
class RedisTlsError extends Error {
  readonly code = 'config_invalid';
  constructor(where: string, reason: string) {
    super(
      `${where}: the Redis server's TLS certificate is not trusted (${reason}): set REDIS_CA_FILE (config "redis.tls.caFile") to the PEM file of the authority that signed it`,
    );
    this.name = 'RedisTlsError';
  }
}

function tlsOptions(address: RedisAddress): ConnectionOptions | undefined {
  if (!address.tls) return undefined;
  if (!address.caFile) return {};
  try {
    return { ca: readFileSync(address.caFile) };
  } catch (error) {
    throw new RedisCaFileError(address.caFile, errnoOf(error) ?? errorMessage(error));
  }
}

/** A master that became a replica answers writes with READONLY until the connection asks the Sentinels again. */
const RECONNECT_ON_READONLY = (error: Error) => (/^READONLY\b/.test(error.message) ? 2 : false);

/**
 * A master demoted by a FAILOVER keeps its clients: the command fails, so an address led to a replica for good is seen,
 * and the next goes to a new connection, which the address's DNS may lead to the new master (redis-failover-address.int).
 */
const NEW_CONNECTION_ON_READONLY = (error: Error) => (/^READONLY\b/.test(error.message) ? 1 : false);

function openConnection(address: RedisAddress, options: RedisOptions): Redis {
  const tls = tlsOptions(address);
  switch (address.kind) {
    case 'standalone':
      return new Redis(address.url, {
        reconnectOnError: NEW_CONNECTION_ON_READONLY,
        ...options,
        // A URL carries its own; a socket's are given beside its path.
        ...(address.url.startsWith('/') ? { username: address.username, password: address.password } : {}),
        ...(tls ? { tls } : {}),
      });
    case 'sentinel':
      return new Redis({
        ...options,
        sentinels: address.sentinels,
        name: address.name,
        role: 'master',
        db: address.database,
        username: address.username,
        password: address.password,
        // No failoverDetector: its +switch-master cut a reconnect in progress, and ioredis then ended the connection for
        // good ("Connection is closed."). A demoted master closes its clients, and READONLY reconnects the rest.
        reconnectOnError: RECONNECT_ON_READONLY,
        ...(tls ? { tls, enableTLSForSentinelMode: true, sentinelTLS: tls } : {}),
      });
    case 'cluster': {
      const { retryStrategy, lazyConnect, enableReadyCheck, ...redisOptions } = options;
      const cluster = new Cluster(address.nodes, {
        redisOptions: {
          ...redisOptions,
          username: address.username,
          password: address.password,
          ...(tls ? { tls } : {}),
        },
        clusterRetryStrategy: retryStrategy ? (times) => retryStrategy(times) ?? null : undefined,
        lazyConnect,
        enableReadyCheck,
        // Nodes announce addresses; a certificate names them as announced, so they are used as they are.
        dnsLookup: (host, callback) => callback(null, host),
      });
      return cluster as unknown as Redis;
    }
  }
}

/** A REDIS_URL whose database the server refuses: every key would go to database 0, beside whatever else is there. */
export class RedisDatabaseError extends Error {
  readonly code = 'config_invalid';
  constructor(url: string, database: number, reason: string) {
    super(
      `REDIS_URL ${describeRedisAddress(url)} names database ${database}, which this Redis refuses (${reason}); name one it has (0 to 15 by default)`,
    );
    this.name = 'RedisDatabaseError';
  }
}

/** Where to look, what to say: the key prefix a Cluster's advice names. */
export interface PingRedisOptions {
  prefix?: string;
}

/** How long a probe waits for each answer of a server that accepted its connection. */
const PING_DEADLINE_MS = 5_000;

/** A server that accepted the connection and did not answer in time. */
class RedisFrozenError extends Error {
  override readonly name = 'RedisFrozenError';
}

/** ioredis's rejection of a command that `commandTimeout` ended. */
function isCommandTimeout(error: unknown): boolean {
  return error instanceof Error && error.message.endsWith('Command timed out');
}

/** What to say of a server that did not answer in time. */
function frozenDetail(ms: number): string {
  return `it did not answer within ${ms / 1000} s: frozen, or overloaded`;
}

/** A connection that tries once, for a moment, and is opened by connect(). */
const PROBE_OPTIONS = {
  lazyConnect: true,
  maxRetriesPerRequest: 0,
  connectTimeout: 1500,
  retryStrategy: () => null,
  commandTimeout: PING_DEADLINE_MS,
  // A frozen server never closes its end: the probe destroys its socket soon rather than after ioredis's 2 s.
  disconnectTimeout: 100,
};

/**
 * Connects, PINGs, selects the address's database and checks the server is the kind the address names, or throws why:
 * the system's reason, RedisDatabaseError, RedisTopologyError (a server of another kind) or RedisCaFileError.
 */
export async function pingRedis(url: string, options: PingRedisOptions = {}): Promise<void> {
  const address = parseRedisAddress(url);
  const where = describeRedisAddress(url);
  const redis = openConnection(address, {
    ...PROBE_OPTIONS,
    // ioredis selects the URL's database as it connects, and a refusal only reaches its error event, leaving database 0.
    // Connected to database 0 and asked below, the refusal is an answer (test/engine/redis-database.int.test.ts).
    ...(address.kind === 'standalone' ? { db: 0 } : {}),
    ...(address.kind === 'sentinel' ? { sentinelRetryStrategy: () => null } : {}),
  });
  // connect() rejects with a bare "Connection is closed."; the reason (ECONNREFUSED, ENOTFOUND, ...) comes as an event.
  let reason: Error | undefined;
  redis.on('error', (error: Error) => (reason ??= error));
  try {
    // A frozen server accepts the connection and never answers: the probe ends in time (test/e2e/redis-frozen.int.test.ts).
    const hosts =
      address.kind === 'sentinel' ? address.sentinels.length : address.kind === 'cluster' ? address.nodes.length : 1;
    const deadlineMs = PING_DEADLINE_MS * hosts;
    const answered = await within(
      redis.connect().then(() => redis.ping()),
      deadlineMs,
    );
    if (answered.timedOut || isCommandTimeout(reason ?? answered.error))
      throw new RedisFrozenError(frozenDetail(deadlineMs));
    if (answered.error) {
      // Ask the first server named what it is: a plain Redis behind redis+sentinel:// or redis+cluster:// says so.
      if (address.kind !== 'standalone') await explainWrongKind(address, where, options);
      throw friendlier(reason ?? answered.error, where);
    }
    if (address.kind !== 'standalone') return;
    const facts = await readServerFacts(redis);
    const problem = facts && topologyProblem('standalone', where, facts, options.prefix);
    if (problem) throw new RedisTopologyError(problem);
    if (address.database > 0) {
      await redis.select(address.database).catch((error: Error) => {
        throw new RedisDatabaseError(url, address.database, error.message);
      });
    }
  } finally {
    redis.disconnect();
  }
}

/** Throws RedisTopologyError when the first server of a Sentinel or Cluster address is another kind; else returns. */
async function explainWrongKind(address: RedisAddress, where: string, options: PingRedisOptions): Promise<void> {
  const first =
    address.kind === 'sentinel' ? address.sentinels[0] : address.kind === 'cluster' ? address.nodes[0] : undefined;
  if (!first) return;
  const tls = address.tls ? tlsOptions(address) : undefined;
  const probe = new Redis({
    host: first.host,
    port: first.port,
    ...PROBE_OPTIONS,
    ...(address.kind === 'cluster' ? { username: address.username, password: address.password } : {}),
    ...(tls ? { tls } : {}),
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    const facts = await readServerFacts(probe);
    const server = `${first.host}:${first.port}`;
    const problem = facts && topologyProblem(address.kind, server, facts, options.prefix);
    if (problem) throw new RedisTopologyError(`${where}: ${problem}`);
    if (
      facts?.mode === 'sentinel' &&
      address.kind === 'sentinel' &&
      facts.watched &&
      !facts.watched.includes(address.name)
    ) {
      throw new RedisTopologyError(
        `${where}: the Sentinel at ${server} watches no master named "${address.name}"${facts.watched.length ? ` (it watches ${facts.watched.join(', ')})` : ''}: name the master after the Sentinels' addresses`,
      );
    }
  } catch (error) {
    if (error instanceof RedisTopologyError) throw error;
  } finally {
    probe.disconnect();
  }
}

/** The system's reason for a failed connection, in words that point at the cause. */
function friendlier(error: unknown, where: string): unknown {
  if (!(error instanceof Error)) return error;
  // ioredis's own words ("Protocol error, got "H" as reply type byte. Please report this.") blamed ioredis for a port
  // that another service (an HTTP server) answers.
  if (/^Protocol error/.test(error.message)) {
    return new Error(
      `what answers there does not speak Redis's protocol (${error.message.replace(/\s*Please report this\.?$/, '')}): is it another service's port?`,
    );
  }
  // test/e2e/secrets.int.test.ts, "a wrong Redis password".
  if (/^(WRONGPASS|NOAUTH)\b/.test(error.message)) return new RedisAuthError(where, error.message.replace(/\.$/, ''));
  if (
    /self[- ]signed certificate|unable to (get local issuer|verify the first) certificate|certificate has expired|Hostname\/IP does not match/i.test(
      error.message,
    )
  ) {
    return new RedisTlsError(where, error.message);
  }
  return error;
}

/**
 * The shell over a private redis-server: at its stdin's end (stop(), or this process ending any way, SIGKILL included)
 * it ends the server and removes its folder. A background list's stdin is /dev/null, so it reads the pipe on fd 3.
 */
const WARDEN_SCRIPT = [
  'dir=$1; shift',
  'exec 3<&0',
  'redis-server "$@" 3<&- </dev/null &',
  'server=$!',
  '(read -r _ <&3; kill "$server" 2>/dev/null) &',
  'watcher=$!',
  'exec 3<&-',
  'wait "$server"; code=$?',
  // A watcher left waiting would kill whatever process had the server's number by the time the pipe closed.
  'kill "$watcher" 2>/dev/null',
  'rm -rf "$dir"',
  'exit "$code"',
].join('\n');

/** The exit code of a shell whose command was not found. */
const COMMAND_NOT_FOUND = 127;

/** How long stop() waits for the server to shut down before it kills it (ms). */
const STOP_LIMIT_MS = 5_000;

/**
 * Starts a redis-server from PATH on a free port in a fresh folder, for this process's life, in its own process group:
 * Ctrl-C must not reach it, as the graceful stop still needs it (test/engine/private-redis.int.test.ts).
 */
export async function startPrivateRedis(): Promise<ResolvedRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bvsync-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  let child: ChildProcess;
  try {
    child = spawn('sh', ['-c', WARDEN_SCRIPT, 'bvsync-redis', dir, ...args], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new RedisUnavailableError(
      `nothing at ${LOCAL_REDIS_URL} and redis-server could not start: ${(error as Error).message}`,
    );
  }
  // Neither the server nor its pipe keeps a command alive: one that ends without stop() still ends, and takes the
  // server with it (tieToProcess, and the warden's pipe).
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.stdin?.on('error', () => undefined);
  // Tied before the wait for its first answer: a signal during those seconds must not leave it running either.
  const untie = tieToProcess(child, dir);
  let exited: string | undefined;
  const spawnFailed = new Promise<never>((_, reject) => {
    child.once('error', (error) =>
      reject(
        new RedisUnavailableError(`nothing at ${LOCAL_REDIS_URL} and redis-server could not start (${error.message})`),
      ),
    );
    // A server that dies at start (a port taken meanwhile, a bad option) is said at once, not after every ping failed.
    child.once('exit', (code, signal) => {
      exited =
        code === COMMAND_NOT_FOUND
          ? `nothing at ${LOCAL_REDIS_URL} and no redis-server on PATH`
          : `a private redis-server exited at start (${signal ?? `code ${code}`})`;
      reject(new RedisUnavailableError(exited));
    });
  });
  const url = `redis://127.0.0.1:${port}`;
  // Bounded, so a server that never answers fails the start rather than hanging it.
  const ready = (async () => {
    for (let attempt = 0; attempt < 50 && !exited; attempt++) {
      if (await answers(url)) return;
      await sleep(100);
    }
    throw new RedisUnavailableError(exited ?? `a private redis-server on port ${port} did not answer`);
  })();
  // Whichever loses the race may reject later (spawnFailed does when the server is stopped at the end): nobody waits.
  spawnFailed.catch(() => undefined);
  ready.catch(() => undefined);
  try {
    await Promise.race([ready, spawnFailed]);
  } catch (error) {
    killGroup(child); // one that never answered is not left running
    untie();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const stop = async () => {
    // The warden's cue: it stops the server (SIGTERM) and exits with it.
    child.stdin?.end();
    // A warden that exited already (its server killed) has no exit to wait for, so the wait would never end.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if ((await within(exited, STOP_LIMIT_MS)).timedOut) killGroup(child);
    }
    untie();
    rmSync(dir, { recursive: true, force: true });
  };
  return { url, origin: 'private', stop };
}

/**
 * Kills the warden, its watcher and the server, all in the warden's process group. Only while the warden runs: once it
 * has exited, it has ended the other two, and its number may name another process group by now.
 */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The signal listeners of private servers, told apart from a command's own by tieToProcess. */
const privateServerListeners = new WeakSet<object>();

/**
 * Ends a private redis-server and removes its folder at exit, and on a SIGINT or SIGTERM nothing else listens for, as
 * Node's default then skips 'exit' (the warden waits for the pipe to close). Returns the untie of these listeners.
 */
function tieToProcess(child: ChildProcess, dir: string): () => void {
  const onExit = () => {
    // Nothing may throw out of an 'exit' listener: the process ends either way, and a folder left in /tmp is no reason
    // to end it with an error.
    try {
      killGroup(child);
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // left for the system's /tmp cleaning
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    // A command that handles the signal stops gracefully, closing queues on this Redis, and stops it in its finally.
    if (process.listeners(signal).some((listener) => !privateServerListeners.has(listener))) return;
    onExit();
    untie();
    // With no listener left, Node's default applies again: the process ends as it would have without us, killed by
    // the signal (another private server's listener, if any, first does the same).
    process.kill(process.pid, signal);
  };
  const untie = () => {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  privateServerListeners.add(onSignal);
  process.once('exit', onExit);
  // First in line, so a command's stop handler is still registered (it removes itself when called) when we look.
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);
  return untie;
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Deletes every key under a prefix (SCAN, not KEYS, so a shared Redis is never blocked). On a Cluster, each master is
 * scanned: SCAN reads one node's keys.
 */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<void> {
  const connection = redis as unknown;
  if (connection instanceof Cluster) {
    for (const node of connection.nodes('master')) await deleteKeysWithPrefix(node, prefix);
    return;
  }
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}
