import { z } from 'zod';
import { parseRedisAddress, redisAddressProblem, withCaFile } from '../redis-address.js';
import { clusterPrefixAdvice, prefixHasHashTag } from '../redis-keys.js';

const hostPort = z
  .string()
  .regex(/^(\[[^\]]+\]|[^:,/[\]\s]+):\d{1,5}$/, 'expected host:port, such as redis-1.internal:26379');

/**
 * `redis`: the topology when it is not the one server `redisUrl` (REDIS_URL) names: Sentinels and their master's name,
 * or a Redis Cluster's nodes; and TLS's certificate authorities (docs/configuration.md, "Redis").
 */
export const redisConfigSchema = z
  .object({
    /** Sentinels (host:port) that know the master; with `name`. Default none. */
    sentinels: z.array(hostPort).min(1).optional(),
    /** The master's name the Sentinels watch (`sentinel monitor <name> ...`). */
    name: z
      .string()
      .min(1)
      .regex(/^[^\s/?#]+$/, 'a master name has no spaces, /, ? or #')
      .optional(),
    /** The database of the master found through Sentinels; default 0. */
    db: z.number().int().min(0).max(1024).optional(),
    /** Some nodes (host:port) of a Redis Cluster; the rest are found from them. Default none. */
    cluster: z.array(hostPort).min(1).optional(),
    /** The password of the servers named by `sentinels` or `cluster`. Env `REDIS_PASSWORD` (preferred). Never logged. */
    password: z.string().min(1).optional(),
    /** TLS to every Redis server; `caFile` (env REDIS_CA_FILE) is a PEM file of the authorities to trust. Default off. */
    tls: z
      .object({ caFile: z.string().min(1).optional() })
      .strict()
      .optional(),
  })
  .strict();

export type RedisConfig = z.infer<typeof redisConfigSchema>;

interface RedisSettings {
  redisUrl?: string;
  redis?: RedisConfig;
  redisPrefix: string;
}

/** The address every connection uses, from REDIS_URL or `redis`, checked together; undefined when neither is set. */
export function checkRedisSettings(settings: RedisSettings, ctx: z.RefinementCtx): string | undefined {
  const { redisUrl, redis = {}, redisPrefix } = settings;
  const problem = (path: string[], message: string) => {
    ctx.addIssue({ code: 'custom', path, message });
    return undefined;
  };
  if (redis.sentinels && redis.cluster)
    return problem(['redis'], 'names both sentinels and cluster nodes; a Redis is one or the other');
  if (redisUrl && (redis.sentinels || redis.cluster)) {
    return problem(
      ['redis'],
      `names ${redis.sentinels ? 'sentinels' : 'cluster nodes'} and redisUrl (REDIS_URL) is set too: set one of them`,
    );
  }
  if (redis.sentinels && !redis.name)
    return problem(
      ['redis', 'name'],
      'the Sentinels need the name of the master they watch (`sentinel monitor <name> ...`)',
    );
  if (redis.name && !redis.sentinels)
    return problem(
      ['redis', 'sentinels'],
      `a master name ("${redis.name}") is given without the Sentinels that know it`,
    );
  if (redis.password && redisUrl && /^[^/]*:\/\/[^/?]*@|[?&](username|password)=/.test(redisUrl)) {
    return problem(['redis', 'password'], 'is set and REDIS_URL names a user or password too: give the password once');
  }
  if (redis.db !== undefined && !redis.sentinels)
    return problem(
      ['redis', 'db'],
      'is for a master found through Sentinels; a redis:// URL names its database in its path (/0)',
    );
  const scheme = redis.tls ? 'rediss' : 'redis';
  const userinfo = redis.password ? `:${encodeURIComponent(redis.password)}@` : '';
  // A socket's path takes a password in its query, as ioredis reads it.
  const socketPassword = `${redisUrl?.includes('?') ? '&' : '?'}password=${encodeURIComponent(redis.password ?? '')}`;
  let address =
    redisUrl && redis.password
      ? redisUrl.startsWith('/')
        ? `${redisUrl}${socketPassword}`
        : redisUrl.replace('://', `://${userinfo}`)
      : redisUrl;
  if (redis.sentinels)
    address = `${scheme}+sentinel://${userinfo}${redis.sentinels.join(',')}/${redis.name}${redis.db ? `/${redis.db}` : ''}`;
  if (redis.cluster) address = `${scheme}+cluster://${userinfo}${redis.cluster.join(',')}`;
  if (address === undefined) {
    if (redis.tls)
      return problem(
        ['redis', 'tls'],
        'TLS is set but no Redis is: set REDIS_URL to a rediss:// URL, or redis.sentinels or redis.cluster',
      );
    return undefined;
  }
  // Not quoted back: it may hold a password.
  const unreadable = redisAddressProblem(address);
  if (unreadable) return problem([redisUrl ? 'redisUrl' : 'redis'], unreadable);
  if (redis.tls && !parseRedisAddress(address).tls) {
    const caFile = redis.tls.caFile;
    return problem(
      caFile ? ['redis', 'tls', 'caFile'] : ['redis', 'tls'],
      `${caFile ? `a CA file is set (${caFile})` : 'TLS is set'} but REDIS_URL starts with redis://, without TLS: use rediss://`,
    );
  }
  if (redis.tls?.caFile) {
    try {
      address = withCaFile(address, redis.tls.caFile);
    } catch (error) {
      return problem(['redis', 'tls', 'caFile'], (error as Error).message);
    }
  }
  if (parseRedisAddress(address).kind === 'cluster' && !prefixHasHashTag(redisPrefix))
    return problem(['redisPrefix'], clusterPrefixAdvice(redisPrefix));
  return address;
}
