import type { Redis } from 'ioredis';
import type { RedisAddressKind } from '../../redis-address.js';
import { clusterPrefixAdvice } from '../../redis-keys.js';

/**
 * The kind of Redis server an address reached (`INFO`), and what to configure when it is not the kind the address
 * names, e.g. a replica via redis://, a plain server via redis+sentinel:// (test/engine/redis-server-kind.int.test.ts).
 */
export interface RedisServerFacts {
  /** `redis_mode` of INFO server. */
  mode: 'standalone' | 'sentinel' | 'cluster';
  /** `role` of INFO replication: `slave` is said `replica`. */
  role: 'master' | 'replica';
  /** A replica's master, `host:port`. */
  master?: string;
  /** The master names a Sentinel watches. */
  watched?: string[];
}

/** A Redis that is not the kind its address names; the message says what it is and what to set. */
export class RedisTopologyError extends Error {
  readonly code = 'config_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'RedisTopologyError';
  }
}

/** INFO's `field:value` lines as a map. */
function infoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

/**
 * The facts of the server a connection is on; undefined when it will not say (a managed Redis may rename or forbid
 * INFO), in which case nothing is refused on their account.
 */
export async function readServerFacts(redis: Redis): Promise<RedisServerFacts | undefined> {
  let server: Map<string, string>;
  try {
    server = infoFields(await redis.info('server'));
  } catch {
    return undefined;
  }
  const mode = server.get('redis_mode');
  if (mode === 'sentinel') {
    const masters = (await redis.call('SENTINEL', 'MASTERS').catch(() => [])) as unknown[];
    const watched = masters.map((fields) => {
      const list = fields as string[];
      return list[list.indexOf('name') + 1] ?? '';
    });
    return { mode, role: 'master', watched: watched.filter(Boolean) };
  }
  const replication = infoFields(await redis.info('replication').catch(() => ''));
  const role = replication.get('role') === 'slave' ? 'replica' : 'master';
  const host = replication.get('master_host');
  return {
    mode: mode === 'cluster' ? 'cluster' : 'standalone',
    role,
    master: role === 'replica' && host ? `${host}:${replication.get('master_port') ?? ''}` : undefined,
  };
}

/** Why a server of these facts cannot serve an address of this kind, and what to set; undefined when it can. */
export function topologyProblem(
  kind: RedisAddressKind,
  where: string,
  facts: RedisServerFacts,
  prefix = 'bvsync',
): string | undefined {
  if (kind === 'standalone') {
    if (facts.mode === 'sentinel') {
      const name = facts.watched?.length === 1 ? facts.watched[0]! : '<master-name>';
      const watched = facts.watched?.length ? ` (it watches ${facts.watched.join(', ')})` : '';
      return `${where} is a Redis Sentinel${watched}, not the master: set REDIS_URL=redis+sentinel://${hostOf(where)}/${name} (config "redis.sentinels" and "redis.name")`;
    }
    if (facts.mode === 'cluster')
      return `${where} is a node of a Redis Cluster: set REDIS_URL=redis+cluster://${hostOf(where)} (config "redis.cluster"), and ${clusterPrefixAdvice(prefix)}`;
    if (facts.role === 'replica')
      return `${where} is a replica${facts.master ? ` of ${facts.master}` : ''}, which refuses writes: point REDIS_URL at the master, or use Sentinel (REDIS_URL=redis+sentinel://host:26379/<master-name>) so bvsync follows failovers`;
    return undefined;
  }
  if (kind === 'sentinel' && facts.mode !== 'sentinel')
    return `${where} is not a Redis Sentinel (it is a ${describeFacts(facts)}): list the Sentinels' ports (26379 by default) in redis+sentinel://, or use REDIS_URL=redis://${hostOf(where)} for this server`;
  if (kind === 'cluster' && facts.mode !== 'cluster')
    return `${where} is not a Redis Cluster node (it is a ${describeFacts(facts)}, cluster mode off): use REDIS_URL=${facts.mode === 'sentinel' ? 'redis+sentinel' : 'redis'}://${hostOf(where)}`;
  return undefined;
}

/** A server's kind in a few words: "Redis Sentinel", "standalone replica of 10.0.0.5:6379". */
function describeFacts(facts: RedisServerFacts): string {
  if (facts.mode === 'sentinel') return 'Redis Sentinel';
  const what = `${facts.mode === 'cluster' ? 'Redis Cluster' : 'standalone'} ${facts.role}`;
  return facts.master ? `${what} of ${facts.master}` : what;
}

function hostOf(where: string): string {
  return where
    .replace(/^[a-z+]+:\/\//, '')
    .replace(/^[^@/]*@/, '')
    .replace(/\/.*$/, '');
}

/**
 * What a server's refusal in the middle of a command says of the topology, for errors that reach the user: a replica's
 * READONLY (a failover without Sentinel), a Cluster's MOVED, a Sentinel's unknown command. Undefined for other errors.
 */
export function replyAdvice(message: string): string | undefined {
  if (/^READONLY\b/.test(message))
    return 'Redis answered READONLY: the server is a replica now (a failover?). Point REDIS_URL at the master, or use Sentinel (redis+sentinel://host:26379/<master-name>) so bvsync follows failovers';
  if (/^(MOVED|ASK) \d+ /.test(message) || /^CROSSSLOT\b/.test(message))
    return `Redis answered ${message.split(' ')[0]}: it is a Redis Cluster. Set REDIS_URL=redis+cluster://host:port (config "redis.cluster") and a prefix with a hash tag (BVSYNC_REDIS_PREFIX={bvsync})`;
  if (/^ERR unknown command '(hgetall|get|set|evalsha|eval|zadd|hset)'/i.test(message))
    return 'Redis answered "unknown command": the port is a Redis Sentinel\'s. Set REDIS_URL=redis+sentinel://host:26379/<master-name> (config "redis.sentinels", "redis.name")';
  return undefined;
}
