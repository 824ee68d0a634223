import { gunzipSync, gzipSync, constants } from 'node:zlib';

/** The first two bytes of every gzip stream. */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/**
 * Rows travel from fetchers to the loader as gzipped JSON in Redis, so Redis memory and round trips stay small; level 1
 * gives most of the gain for a fraction of the CPU. Stored as bytes, not base64 (test/engine/chunk-codec.test.ts).
 */
export function encodeChunk(value: unknown): Buffer {
  return gzipSync(JSON.stringify(value), { level: constants.Z_BEST_SPEED });
}

/** Reads a chunk; one written as base64 text (by a bvsync before the bytes were stored as they are) still reads. */
export function decodeChunk<T>(encoded: Buffer | string): T {
  const bytes =
    typeof encoded === 'string' || encoded[0] !== GZIP_MAGIC[0] || encoded[1] !== GZIP_MAGIC[1]
      ? Buffer.from(encoded.toString(), 'base64')
      : encoded;
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as T;
}
