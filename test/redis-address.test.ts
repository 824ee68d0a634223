import { describe, expect, it } from 'vitest';
import { describeRedisAddress, parseRedisAddress, withCaFile } from '../src/redis-address.js';

describe('a Redis address', () => {
  it('reads Sentinel and Cluster host lists, with default ports, IPv6 hosts and an encoded password', () => {
    expect(parseRedisAddress('redis+sentinel://:p%40ss@s1,[::1]:26380/main')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'main',
      database: 0,
      tls: false,
      password: 'p@ss',
    });
    expect(parseRedisAddress('rediss+cluster://user:pw@n1,n2:7001')).toMatchObject({
      kind: 'cluster',
      nodes: [
        { host: 'n1', port: 6379 },
        { host: 'n2', port: 7001 },
      ],
      tls: true,
      username: 'user',
      password: 'pw',
    });
  });

  it('carries a CA file in its query, which ioredis never sees', () => {
    const address = withCaFile('rediss://h:6380/1', '/etc/ssl/ca.pem');
    expect(parseRedisAddress(address)).toMatchObject({
      kind: 'standalone',
      url: 'rediss://h:6380/1',
      database: 1,
      tls: true,
      caFile: '/etc/ssl/ca.pem',
    });
  });

  it('is described without its password, whatever its form', () => {
    for (const [address, shown] of [
      ['redis://:s3cret@h:6379/2', 'redis://:***@h:6379/2'],
      ['redis+sentinel://u:s3cret@a:1,b:2/m/3', 'redis+sentinel://u:***@a:1,b:2/m/3'],
      ['rediss+cluster://:s3cret@a:1', 'rediss+cluster://:***@a:1'],
    ]) {
      expect(describeRedisAddress(address!)).toBe(shown);
    }
  });

  it('reads a password from the query, as ioredis does, and describes it masked', () => {
    const standalone = parseRedisAddress('redis://h:6379/2?password=p%40ss&family=6');
    expect(standalone).toMatchObject({ url: 'redis://:p%40ss@h:6379/2?family=6', password: 'p@ss', database: 2 });
    expect(parseRedisAddress('redis+sentinel://s1/m?username=u&password=pw')).toMatchObject({
      username: 'u',
      password: 'pw',
    });
    expect(parseRedisAddress('redis+cluster://n1:7000?password=pw')).toMatchObject({ password: 'pw' });
    expect(describeRedisAddress('redis://h:6379/2?password=s3cret')).toBe('redis://:***@h:6379/2');
    expect(parseRedisAddress('/run/redis.sock?password=s3cret&db=1')).toMatchObject({
      url: '/run/redis.sock?db=1',
      password: 's3cret',
    });
    expect(describeRedisAddress('/run/redis.sock?password=s3cret')).toBe('/run/redis.sock');
    expect(describeRedisAddress('redis+cluster://n1:7000?password=s3cret')).toBe('redis+cluster://:***@n1:7000');
    expect(() => parseRedisAddress('redis://:a@h?password=s3cret')).toThrow(
      expect.objectContaining({
        message: 'the address gives a password twice, before the host and as ?password=: keep one',
      }),
    );
  });

  it('names what is wrong without quoting a password', () => {
    expect(() => parseRedisAddress('redis+sentinel://:s3cret@a:1')).toThrow(/names its master after the Sentinels/);
    expect(() => parseRedisAddress('redis+cluster://:s3cret@a:1/0')).toThrow(/a Redis Cluster has database 0 alone/);
    expect(() => parseRedisAddress('redis+cluster://:s3cret@a:99999')).toThrow(
      /"a:99999" is not a host:port of a Cluster node/,
    );
    for (const address of ['redis+cluster://:s3cret#1?z@h1:7000', 'redis://user:1234/s3cret@127.0.0.1:6379']) {
      expect(() => parseRedisAddress(address)).toThrow(
        /a part of the address \(not quoted: it may hold the password\)/,
      );
    }
    expect(() => parseRedisAddress('memcached://:s3cret@a')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('s3cret') }),
    );
  });
});
