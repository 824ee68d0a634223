import { afterAll, describe, expect, it } from 'vitest';
import { checkEvictionPolicy, type DoctorCheck } from '../../src/cli/doctor/checks.js';
import { parseConfig } from '../../src/configuration.js';
import { HAVE_REDIS_SERVER, startServer, stopAll } from '../support/redis-topology.js';

/** Doctor warns of an eviction policy that lets a full Redis drop queue keys, and says nothing of `noeviction`. */

afterAll(() => stopAll());

async function checksOf(redisUrl: string): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  await checkEvictionPolicy(parseConfig({ redisUrl }), (check) => checks.push(check));
  return checks;
}

describe.skipIf(!HAVE_REDIS_SERVER)("doctor's check of Redis's eviction policy (needs redis-server)", () => {
  it('warns of allkeys-lru, naming the setting to use', async () => {
    const server = await startServer(['--maxmemory-policy', 'allkeys-lru']);
    expect(await checksOf(server.url)).toEqual([
      {
        ok: true,
        warning: true,
        line: "redis: maxmemory-policy is allkeys-lru: a full Redis may evict the queues' keys and lose jobs; set it to noeviction",
      },
    ]);
  });

  it('says nothing of noeviction', async () => {
    const server = await startServer(['--maxmemory-policy', 'noeviction']);
    expect(await checksOf(server.url)).toEqual([]);
  });
});
