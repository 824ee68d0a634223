import type { Redis } from 'ioredis';
import type { ChunkSink, SliceChunk } from '../streams/run-slice.js';
import { decodeChunk, encodeChunk } from './chunk-codec.js';
import { redisKeys } from '../redis-keys.js';
import { RunGoneError } from './run-gone.js';

// A chunk is kept only while its run's record (KEYS[1]) is in Redis: a fetch still reading when Redis restarted empty
// left its chunks in the fresh Redis for a day (run-gone.ts).
const WRITE_CHUNK = `if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('set', KEYS[2], ARGV[1], 'EX', ARGV[2])
return 1`;

// Chunks wait for the loader at most this long; a run that takes longer re-fetches the slice.
const CHUNK_TTL_SECONDS = 24 * 60 * 60;

function chunkKey(prefix: string, token: string, index: number): string {
  return redisKeys(prefix).chunk(token, index);
}

/**
 * Where a fetcher's chunks wait, compressed, until the loader commits the slice. They stay until the commit has
 * succeeded, so a loader that dies mid-transaction finds them again.
 */
export class RedisChunkSink implements ChunkSink {
  private count = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly token: string,
    /** The run the slice is read for: nothing is written once its record is gone. */
    private readonly runId: string,
  ) {}

  get chunks(): number {
    return this.count;
  }

  async write(chunk: SliceChunk): Promise<void> {
    const written = await this.redis.eval(WRITE_CHUNK, 2, redisKeys(this.prefix).run(this.runId), chunkKey(this.prefix, this.token, this.count), encodeChunk(chunk), CHUNK_TTL_SECONDS);
    if (written !== 1) throw new RunGoneError(this.runId);
    this.count += 1;
  }

  async reset(): Promise<void> {
    await deleteChunks(this.redis, this.prefix, this.token, this.count);
    this.count = 0;
  }
}

/**
 * Reads a slice's chunks in order, asked all at once (one round trip to Redis, not one per chunk); undefined when one
 * is gone (expired, or Redis lost its data).
 */
export async function readChunks(redis: Redis, prefix: string, token: string, count: number): Promise<SliceChunk[] | undefined> {
  const encoded = await Promise.all(Array.from({ length: count }, (_, index) => redis.getBuffer(chunkKey(prefix, token, index))));
  if (encoded.some((chunk) => chunk === null)) return undefined;
  return encoded.map((chunk) => decodeChunk<SliceChunk>(chunk!));
}

export async function deleteChunks(redis: Redis, prefix: string, token: string, count: number): Promise<void> {
  const keys = Array.from({ length: count }, (_, index) => chunkKey(prefix, token, index));
  if (keys.length) await redis.del(...keys);
}
