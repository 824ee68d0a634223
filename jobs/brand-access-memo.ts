import type { Redis } from 'ioredis';
import { z } from 'zod';
import { keyHash } from '../src/api/index.js';

/** How a brand was found unreadable: the API's answer, kept to record the brand's slices failed without a request. */
const brandDenialSchema = z.object({
  brandId: z.number().int().positive(),
  /** The API's error code (`brand_access_denied`). */
  errorCode: z.string().min(1),
  /** The error's message, without the key (API errors are redacted when built). */
  message: z.string(),
  requestId: z.string().nullable(),
  /** When the API said so (ISO time). */
  at: z.string(),
});
export type BrandDenial = z.infer<typeof brandDenialSchema>;

/**
 * How long a denial is believed without asking the API again. Long enough to cover a run, so a brand the key cannot
 * read costs one request per run rather than one per slice; short enough that access granted later is seen by the
 * next run even when nothing asks (every `sync`, `backfill` and `worker` start asks again anyway).
 */
export const DENIAL_MEMORY_MS = 60 * 60 * 1000;

/**
 * Brands the API key cannot read, shared by every process through Redis under `<prefix>:brand-denied:<hash of the
 * key>:<brand>` (a hash: the key is never stored). Written by the preflight of a command and by the first fetch
 * that meets a 403 `brand_access_denied`; read by every fetch job before it calls the API, so a run records each
 * slice of such a brand as failed, with the API's error, without asking again for every day.
 */
export class BrandAccessMemo {
  private readonly keyPrefix: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    apiKey: string,
    private readonly ttlMs = DENIAL_MEMORY_MS,
  ) {
    this.keyPrefix = `${prefix}:brand-denied:${keyHash(apiKey)}:`;
  }

  async remember(denial: BrandDenial): Promise<void> {
    await this.redis.set(this.keyPrefix + denial.brandId, JSON.stringify(denial), 'PX', this.ttlMs);
  }

  /** The brand was read: a denial remembered earlier no longer holds. */
  async forget(brandId: number): Promise<void> {
    await this.redis.del(this.keyPrefix + brandId);
  }

  async denial(brandId: number): Promise<BrandDenial | undefined> {
    const text = await this.redis.get(this.keyPrefix + brandId);
    if (!text) return undefined;
    try {
      const parsed = brandDenialSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined; // anything else is not ours to trust: ask the API
    } catch {
      return undefined;
    }
  }
}
