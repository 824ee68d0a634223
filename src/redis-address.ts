/**
 * What a Redis address names: one server, a master through Sentinels or a Cluster (docs/configuration.md, "Redis").
 * The config checks addresses with it and the engine connects with it, so both read the same forms.
 */

export interface HostPort {
  host: string;
  port: number;
}

interface Credentials {
  username?: string;
  password?: string;
}

interface Tls {
  /** TLS to every server of the address (`rediss` in its scheme). */
  tls: boolean;
  /** A PEM file of the certificate authorities to trust (`?tls_ca_file=`), instead of the system's. */
  caFile?: string;
}

export type RedisAddress =
  | ({ kind: 'standalone'; url: string; database: number } & Credentials & Tls)
  | ({ kind: 'sentinel'; sentinels: HostPort[]; name: string; database: number } & Credentials & Tls)
  | ({ kind: 'cluster'; nodes: HostPort[] } & Credentials & Tls);

export type RedisAddressKind = RedisAddress['kind'];

/** The query parameter that carries a CA file in an address (REDIS_CA_FILE and `redis.tls.caFile` become it). */
const CA_FILE_PARAMETER = 'tls_ca_file';

const SENTINEL_PORT = 26379;
const REDIS_PORT = 6379;

/** An address that cannot be read; the message says which form was expected, never quoting a password. */
class RedisAddressError extends Error {
  readonly code = 'config_invalid';
  override readonly name = 'RedisAddressError';
}

const FORMS =
  'expected a redis:// or rediss:// URL with a host, such as redis://127.0.0.1:6379/0, a Sentinel address ' +
  '(redis+sentinel://host1:26379,host2:26379/master-name), a Cluster address (redis+cluster://host1:7000,host2:7001), ' +
  'or the path of a unix socket, from /';

/** Reads an address, or throws RedisAddressError saying what is wrong with it. */
export function parseRedisAddress(text: string): RedisAddress {
  if (text.startsWith('/')) return socket(text);
  const scheme = /^([a-z+]+):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'redis' || scheme === 'rediss') return standalone(text, scheme === 'rediss');
  if (scheme === 'redis+sentinel' || scheme === 'rediss+sentinel') return sentinel(text, scheme.startsWith('rediss'));
  if (scheme === 'redis+cluster' || scheme === 'rediss+cluster') return cluster(text, scheme.startsWith('rediss'));
  throw new RedisAddressError(FORMS);
}

/** The problem with an address, or undefined when it can be used. */
export function redisAddressProblem(text: string): string | undefined {
  try {
    parseRedisAddress(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function standalone(text: string, tls: boolean): RedisAddress {
  if (!URL.canParse(text) || new URL(text).hostname === '') throw new RedisAddressError(FORMS);
  const url = new URL(text);
  const caFile = url.searchParams.get(CA_FILE_PARAMETER) ?? undefined;
  url.searchParams.delete(CA_FILE_PARAMETER);
  // ioredis reads `?password=` too: moved before the host, where describeRedisAddress masks it.
  const fromQuery = queryCredentials(url.searchParams, { username: url.username, password: url.password });
  if (fromQuery.username) url.username = encodeURIComponent(fromQuery.username);
  if (fromQuery.password) url.password = encodeURIComponent(fromQuery.password);
  const index = url.pathname.slice(1);
  if (index !== '' && !/^\d+$/.test(index))
    throw new RedisAddressError(
      `the path of a redis:// address is a database number (/0 to /15), not ${quoted(`/${index}`, text)}`,
    );
  return {
    kind: 'standalone',
    url: url.toString(),
    database: Number(index || 0),
    tls,
    caFile,
    ...credentials(url.username, url.password),
  };
}

/** A unix socket's path; ioredis reads a `?password=` after it too, taken out here as from a URL. */
function socket(text: string): RedisAddress {
  const queryAt = text.indexOf('?');
  if (queryAt < 0) return { kind: 'standalone', url: text, database: 0, tls: false };
  const query = new URLSearchParams(text.slice(queryAt + 1));
  const found = queryCredentials(query, { username: '', password: '' });
  const rest = query.toString();
  return {
    kind: 'standalone',
    url: `${text.slice(0, queryAt)}${rest ? `?${rest}` : ''}`,
    database: 0,
    tls: false,
    ...found,
  };
}

/** `scheme://[user[:password]@]hosts[/path][?query]`, split by hand: `h1:1,h2:2` is no host WHATWG URLs accept. */
function splitMultiHost(text: string): { userinfo: string; hosts: string; path: string; query: URLSearchParams } {
  const rest = text.slice(text.indexOf('://') + 3);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = new URLSearchParams(queryAt < 0 ? '' : rest.slice(queryAt + 1));
  const at = beforeQuery.lastIndexOf('@');
  const userinfo = at < 0 ? '' : beforeQuery.slice(0, at);
  const afterUser = beforeQuery.slice(at + 1);
  const slash = afterUser.indexOf('/');
  return {
    userinfo,
    hosts: slash < 0 ? afterUser : afterUser.slice(0, slash),
    path: slash < 0 ? '' : afterUser.slice(slash + 1),
    query,
  };
}

/** A piece of an address, quoted only when it first stands after the last `@`, clear of where a password may be. */
function quoted(part: string, text: string): string {
  return text.indexOf(part) > text.lastIndexOf('@')
    ? `"${part}"`
    : 'a part of the address (not quoted: it may hold the password)';
}

function hostList(text: string, hosts: string, defaultPort: number, what: string): HostPort[] {
  const list = hosts.split(',').filter((part) => part !== '');
  if (list.length === 0) throw new RedisAddressError(`names no ${what}; ${FORMS}`);
  return list.map((part) => {
    const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(part);
    const port = Number(match?.[2] ?? defaultPort);
    if (!match || port < 1 || port > 65535)
      throw new RedisAddressError(`${quoted(part, text)} is not a host:port of a ${what}; ${FORMS}`);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

function credentials(username: string, password: string): Credentials {
  const decode = (part: string) => (part === '' ? undefined : decodeURIComponent(part));
  return { username: decode(username), password: decode(password) };
}

function userinfoCredentials(userinfo: string, query: URLSearchParams): Credentials {
  const colon = userinfo.indexOf(':');
  const written =
    colon < 0
      ? { username: userinfo, password: '' }
      : { username: userinfo.slice(0, colon), password: userinfo.slice(colon + 1) };
  // queryCredentials holds only what the userinfo left empty, so the query's fill it without overwriting.
  return { ...credentials(written.username, written.password), ...queryCredentials(query, written) };
}

/**
 * A `?username=` or `?password=` (ioredis's form), taken out of the query; one beside a userinfo's is a mistake said
 * back. test/redis-address.test.ts, "reads a password from the query".
 */
function queryCredentials(query: URLSearchParams, written: { username: string; password: string }): Credentials {
  const found: Credentials = {};
  for (const key of ['username', 'password'] as const) {
    const value = query.get(key);
    query.delete(key);
    if (value === null || value === '') continue;
    if (written[key] !== '')
      throw new RedisAddressError(`the address gives a ${key} twice, before the host and as ?${key}=: keep one`);
    found[key] = value;
  }
  return found;
}

function sentinel(text: string, tls: boolean): RedisAddress {
  const parts = splitMultiHost(text);
  const [name, index, ...more] = parts.path.split('/');
  if (!name)
    throw new RedisAddressError(
      'a redis+sentinel:// address names its master after the Sentinels: redis+sentinel://host1:26379,host2:26379/master-name',
    );
  if (more.length > 0 || (index !== undefined && index !== '' && !/^\d+$/.test(index))) {
    throw new RedisAddressError(
      "a redis+sentinel:// address ends with the master's name and, optionally, a database number: /master-name/0",
    );
  }
  return {
    kind: 'sentinel',
    sentinels: hostList(text, parts.hosts, SENTINEL_PORT, 'Sentinel'),
    name: decodeURIComponent(name),
    database: Number(index || 0),
    tls,
    caFile: parts.query.get(CA_FILE_PARAMETER) ?? undefined,
    ...userinfoCredentials(parts.userinfo, parts.query),
  };
}

function cluster(text: string, tls: boolean): RedisAddress {
  const parts = splitMultiHost(text);
  if (parts.path !== '')
    throw new RedisAddressError(
      'a Redis Cluster has database 0 alone: drop the path from the redis+cluster:// address',
    );
  return {
    kind: 'cluster',
    nodes: hostList(text, parts.hosts, REDIS_PORT, 'Cluster node'),
    tls,
    caFile: parts.query.get(CA_FILE_PARAMETER) ?? undefined,
    ...userinfoCredentials(parts.userinfo, parts.query),
  };
}

/** The address without its password, for messages and logs. */
export function describeRedisAddress(text: string): string {
  let address: RedisAddress;
  try {
    address = parseRedisAddress(text);
  } catch {
    return 'an unreadable Redis address';
  }
  const scheme = address.tls ? 'rediss' : 'redis';
  const user = address.username
    ? `${address.username}${address.password ? ':***' : ''}@`
    : address.password
      ? ':***@'
      : '';
  const hosts = (list: HostPort[]) =>
    list.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(',');
  switch (address.kind) {
    case 'standalone': {
      if (address.url.startsWith('/')) return address.url;
      const url = new URL(address.url);
      if (url.password) url.password = '***';
      return url.toString();
    }
    case 'sentinel':
      return `${scheme}+sentinel://${user}${hosts(address.sentinels)}/${address.name}${address.database ? `/${address.database}` : ''}`;
    case 'cluster':
      return `${scheme}+cluster://${user}${hosts(address.nodes)}`;
  }
}

/** Puts a CA file into an address (REDIS_CA_FILE, `redis.tls.caFile`); an address without TLS is a mistake said back. */
export function withCaFile(text: string, caFile: string): string {
  const address = parseRedisAddress(text);
  if (!address.tls) {
    throw new RedisAddressError(
      `a CA file is set (${caFile}) but the Redis address does not use TLS: start it with rediss:// (rediss+sentinel://, rediss+cluster://)`,
    );
  }
  const separator = text.includes('?') ? '&' : '?';
  return `${text}${separator}${CA_FILE_PARAMETER}=${encodeURIComponent(caFile)}`;
}
