/**
 * A prefix: letters, digits, `_` and `-`, with at most one hash tag (`bv{prod}`). A Cluster hashes a key by its first
 * `{...}`, so a tagged prefix puts all keys in one slot, as scripts need (test/engine/redis-cluster.int.test.ts).
 */
export const REDIS_PREFIX_PATTERN = /^[A-Za-z0-9_-]*(\{[A-Za-z0-9_-]+\})?[A-Za-z0-9_-]*$/;

/** What REDIS_PREFIX_PATTERN's refusal says. */
export const REDIS_PREFIX_RULE = 'letters, digits, _ and - only, with at most one hash tag such as {bvsync}';

/** Whether every key under a prefix lands in one Cluster slot: it holds a hash tag. */
export function prefixHasHashTag(prefix: string): boolean {
  return REDIS_PREFIX_PATTERN.test(prefix) && /\{[^}]+\}/.test(prefix);
}

/** What to do about a prefix without a hash tag on a Redis Cluster. */
export function clusterPrefixAdvice(prefix: string): string {
  const tagged = REDIS_PREFIX_PATTERN.test(`{${prefix}}`) ? `{${prefix}}` : '{bvsync}';
  return `a Redis Cluster needs a prefix with a hash tag, so that every key of a run is in one slot: set BVSYNC_REDIS_PREFIX=${tagged} (config "redisPrefix")`;
}

/**
 * Every Redis key bvsync writes, named here alone (BullMQ names its own under the same prefix, the config's
 * `redisPrefix`), so no two parts pick one name. An API key appears only as its hash (docs/architecture.md, "Redis").
 */
export function redisKeys(prefix: string) {
  const run = `${prefix}:run:`;
  return {
    /** Everything under the prefix, for `deleteKeysWithPrefix` (a demo's private prefix, a test's). */
    all: `${prefix}:`,
    /** Never written: EXISTS on it is the outage log's PING, sent where a Cluster keeps bvsync's slot. */
    heartbeat: `${prefix}:heartbeat`,
    /** Who holds the DuckDB writer lease. */
    writerLease: `${prefix}:writer-lease`,
    /** The writer lease's fencing token: a counter every taking of the lease adds one to (src/engine/writer/writer-lease.ts). */
    writerFence: `${prefix}:writer-fence`,
    /** The id of the working file the prefix's committed slices are in, recorded by its first writer (src/engine/writer/prefix-warehouse.ts). */
    warehouse: `${prefix}:warehouse`,
    /** The runs by start time (a sorted set), newest last. */
    runs: `${prefix}:runs`,
    /** A run's record (`part` empty), or one of its sets and counters (`planned`, `done`, `stats`), its outage (`outage`: src/engine/fetch/outage-memo.ts), or a notice sent of it (`notified:<event>`: src/engine/run/run-notices.ts). */
    run: (runId: string, part = '') => `${run}${runId}${part ? `:${part}` : ''}`,
    /** The unfinished run of one window, by the digest of its identity (kind, window, brands, streams). */
    runWindow: (identityDigest: string) => `${prefix}:run-window:${identityDigest}`,
    /** One slot of a schedule, taken by the scheduler process that runs it. */
    cronSlot: (slot: string) => `${prefix}:cron:${slot}`,
    /** One compressed chunk of a fetched slice, waiting for its commit. */
    chunk: (token: string, index: number) => `${prefix}:chunk:${token}:${index}`,
    /** What the API refused for an API key: the key itself (`brandId` null) or one brand. */
    refusal: (apiKeyHash: string, brandId: number | null, stream?: string | null) =>
      `${prefix}:refused:${apiKeyHash}:${brandId === null ? 'key' : `brand:${brandId}${stream ? `:stream:${stream}` : ''}`}`,
    /** The requests an API key sent in one slot of its rate (slots since the epoch; see src/api/rate/rate-gate.ts). */
    rateUnit: (apiKeyHash: string, slot: number) => `${prefix}:rate:${apiKeyHash}:${slot}`,
    /** The Retry-After block of an API key. */
    rateBlock: (apiKeyHash: string) => `${prefix}:rate-block:${apiKeyHash}`,
    /** The adaptive rate an API key runs at, shared by every process. */
    rateState: (apiKeyHash: string) => `${prefix}:rate-state:${apiKeyHash}`,
    /** The count of answers the API accepted for an API key in one second (epoch seconds). */
    rateAccepted: (apiKeyHash: string, second: number) => `${prefix}:rate-ok:${apiKeyHash}:${second}`,
    /** The next moment an API key may send a request. */
    rateNext: (apiKeyHash: string) => `${prefix}:rate-next:${apiKeyHash}`,
    /** Requests an API key sent in one window of its request budget (windows since the epoch; src/api/rate/request-quota.ts). */
    quotaSpent: (apiKeyHash: string, window: number) => `${prefix}:quota:${apiKeyHash}:${window}`,
    /** Until when (ms) an API key's quota is spent, as a 429 with a Retry-After of hours said. */
    quotaBlock: (apiKeyHash: string) => `${prefix}:quota-block:${apiKeyHash}`,
    /** Fetch jobs waiting for the next window of the request budget, by when it begins (a sorted set of job ids). */
    quotaParked: `${prefix}:quota-parked`,
    /** The most requests one slice of each stream took, for the budget's estimate of a slice (a hash). */
    quotaEstimate: `${prefix}:quota-estimate`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;
