import type { Redis } from 'ioredis';
import type { ChunkSink, SliceChunk } from '../../streams/run-slice.js';
import { decodeChunk, encodeChunk } from './chunk-codec.js';
import { redisKeys } from '../../redis-keys.js';
import { RunGoneError } from '../run/run-gone.js';

// A chunk is kept only while its run's record (KEYS[1]) is in Redis, so a Redis restarted empty holds none (run-gone.ts).
const WRITE_CHUNK = `if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('set', KEYS[2], ARGV[1], 'EX', ARGV[2])
return 1`;

// Chunks wait for the loader at most this long; a run that takes longer re-fetches the slice.
const CHUNK_TTL_SECONDS = 24 * 60 * 60;

/** A chunk held back from Redis: the script, keys and arguments that write it, to send with the commit job's add. */
export interface HeldChunk {
  script: string;
  keys: [string, string];
  args: [Buffer, number];
}

export interface RedisChunkSinkOptions {
  /**
   * Holds the last chunk written back, to send in the same round trip as the commit job's add (`held`); an earlier one
   * is written when the next comes. Default false: each chunk is in Redis once `write` returns.
   */
  holdLast?: boolean;
}

/**
 * Where a fetcher's chunks wait, compressed, until the loader commits the slice. They stay until the commit has
 * succeeded, so a loader that dies mid-transaction finds them again.
 */
export class RedisChunkSink implements ChunkSink {
  private count = 0;
  private heldChunk: HeldChunk | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly token: string,
    /** The run the slice is read for: nothing is written once its record is gone. */
    private readonly runId: string,
    private readonly options: RedisChunkSinkOptions = {},
  ) {}

  /** Chunks of the slice, the held one included. */
  get chunks(): number {
    return this.count;
  }

  /** The chunk held back, if any: whoever takes it writes it (WRITE_CHUNK answers 0 when the run is gone). */
  takeHeld(): HeldChunk | undefined {
    const held = this.heldChunk;
    this.heldChunk = undefined;
    return held;
  }

  async write(chunk: SliceChunk): Promise<void> {
    const keys = redisKeys(this.prefix);
    const held: HeldChunk = {
      script: WRITE_CHUNK,
      keys: [keys.run(this.runId), keys.chunk(this.token, this.count)],
      args: [encodeChunk(chunk), CHUNK_TTL_SECONDS],
    };
    if (this.options.holdLast) {
      const earlier = this.takeHeld();
      this.heldChunk = held;
      this.count += 1;
      if (earlier) await this.send(earlier);
      return;
    }
    await this.send(held);
    this.count += 1;
  }

  async reset(): Promise<void> {
    this.heldChunk = undefined;
    await deleteChunks(this.redis, this.prefix, this.token, this.count);
    this.count = 0;
  }

  private async send({ script, keys, args }: HeldChunk): Promise<void> {
    const written = await this.redis.eval(script, 2, ...keys, ...args);
    if (written !== 1) throw new RunGoneError(this.runId);
  }
}

/**
 * Reads a slice's chunks in order, asked all at once (one round trip to Redis, not one per chunk); undefined when one
 * is gone (expired, or Redis lost its data).
 */
export async function readChunks(
  redis: Redis,
  prefix: string,
  token: string,
  count: number,
): Promise<SliceChunk[] | undefined> {
  const encoded = await Promise.all(chunkKeys(prefix, token, count).map((key) => redis.getBuffer(key)));
  if (encoded.some((chunk) => chunk === null)) return undefined;
  return encoded.map((chunk) => decodeChunk<SliceChunk>(chunk!));
}

export function chunkKeys(prefix: string, token: string, count: number): string[] {
  const keys = redisKeys(prefix);
  return Array.from({ length: count }, (_, index) => keys.chunk(token, index));
}

export async function deleteChunks(redis: Redis, prefix: string, token: string, count: number): Promise<void> {
  const keys = chunkKeys(prefix, token, count);
  if (keys.length) await redis.del(...keys);
}
