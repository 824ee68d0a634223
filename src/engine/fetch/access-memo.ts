import type { Redis } from 'ioredis';
import { z } from 'zod';
import { keyHash } from '../../api/index.js';
import { redisKeys, type RedisKeys } from '../../redis-keys.js';

/** What the API refused, kept to record slices failed with its answer instead of asking again for each. */
const refusalSchema = z.object({
  /** The brand refused (403 `brand_access_denied`, or a 403 for one stream), or null when the key itself was (401). */
  brandId: z.number().int().positive().nullable(),
  /** The stream refused for the brand (a 403 of one endpoint: a plan without it), or null when the whole brand or key was. */
  stream: z.string().min(1).nullable().default(null),
  /** The API's error code. */
  errorCode: z.string().min(1),
  /** The error's message, without the key (API errors are redacted when built). */
  message: z.string(),
  requestId: z.string().nullable(),
  /** When the API said so (ISO time). */
  at: z.string(),
});
export type Refusal = z.infer<typeof refusalSchema>;

/**
 * How long a brand's denial is believed: a run long, so an unreadable brand costs one request a run, not one a slice;
 * short enough that the next run sees access granted later (every `sync`, `backfill` and `worker` start asks too).
 */
const BRAND_DENIAL_MEMORY_MS = 60 * 60 * 1000;
/**
 * How long a refused key, or a brand's stream refused with a 403, is believed: a revoked key mid-run costs one request,
 * and a replaced one (or a plan that gained the endpoint) is used soon.
 */
const KEY_REFUSAL_MEMORY_MS = 10 * 60 * 1000;

/**
 * What the API refused to this key (the key, a brand, or one stream of a brand), shared through Redis under a hash of
 * the key, never the key itself. Every fetch job reads it first, so a refused slice fails without another request.
 */
export class AccessMemo {
  private readonly keys: RedisKeys;
  private readonly apiKeyHash: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    apiKey: string,
  ) {
    this.keys = redisKeys(prefix);
    this.apiKeyHash = keyHash(apiKey);
  }

  async remember(refusal: Omit<Refusal, 'stream'> & { stream?: string | null }): Promise<void> {
    const stream = refusal.stream ?? null;
    const ttlMs = refusal.brandId === null || stream !== null ? KEY_REFUSAL_MEMORY_MS : BRAND_DENIAL_MEMORY_MS;
    await this.redis.set(this.keyOf(refusal.brandId, stream), JSON.stringify({ ...refusal, stream }), 'PX', ttlMs);
  }

  /** The API answered for this brand (null: for the key): what was remembered of it, and of `streams`, no longer holds. */
  async forget(brandId: number | null, streams: readonly string[] = []): Promise<void> {
    await this.redis.del(this.keyOf(brandId), ...streams.map((stream) => this.keyOf(brandId, stream)));
  }

  /** The refusal that covers a slice of this brand's stream: the key's, else the brand's, else the stream's. */
  async refusalFor(brandId: number, stream: string): Promise<Refusal | undefined> {
    const [key, brand, ofStream] = await this.redis.mget(
      this.keyOf(null),
      this.keyOf(brandId),
      this.keyOf(brandId, stream),
    );
    return parse(key) ?? parse(brand) ?? parse(ofStream);
  }

  private keyOf(brandId: number | null, stream: string | null = null): string {
    return this.keys.refusal(this.apiKeyHash, brandId, stream);
  }
}

function parse(text: string | null | undefined): Refusal | undefined {
  if (!text) return undefined;
  try {
    const parsed = refusalSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined; // anything else is not ours to trust: ask the API
  } catch {
    return undefined;
  }
}
