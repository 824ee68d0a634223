import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { errnoOf } from '../format.js';
import { PermanentError, TransientError } from './errors.js';
import { firstHeader } from './rate/rate-headers.js';

/** An answer bigger than `api.maxResponseMb`: the same request would bring it again, so it is not retried. */
export class ResponseTooLargeError extends PermanentError {
  override readonly code = 'response_too_large';
}

/** Content codings the client asks for and reads (RFC 9110, section 8.4.1). */
export const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

const DECODERS: Record<string, (bytes: Buffer, options: { maxOutputLength: number }) => Buffer> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/**
 * The text of an answer, read with its size counted: a body over `maxBytes` (as sent or decoded) is cut off with an
 * error naming the setting, so no answer can run the heap out. Only `ACCEPTED_ENCODINGS` are decoded.
 */
export async function readResponseText(
  response: Pick<Dispatcher.ResponseData, 'body' | 'headers'>,
  endpoint: string,
  maxBytes: number,
): Promise<string> {
  const tooLarge = (size: string) =>
    new ResponseTooLargeError(
      `${endpoint}: the answer is ${size}, over api.maxResponseMb (${maxBytes / 2 ** 20} MB); raise it if the API's answers are this large`,
      { endpoint },
    );
  const declared = Number(firstHeader(response.headers, 'content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.body.destroy();
    throw tooLarge(`${formatMb(declared)} (its Content-Length)`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      response.body.destroy();
      throw tooLarge(`over ${formatMb(maxBytes)} and still coming`);
    }
    chunks.push(chunk);
  }
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  const coding = firstHeader(response.headers, 'content-encoding')?.trim().toLowerCase();
  if (!coding || coding === 'identity') return bytes.toString('utf8');
  const decode = DECODERS[coding];
  if (!decode)
    throw new PermanentError(
      `${endpoint}: the answer is in Content-Encoding "${coding}", which bvsync cannot read (it asks for ${ACCEPTED_ENCODINGS})`,
      { endpoint },
    );
  try {
    return decode(bytes, { maxOutputLength: maxBytes }).toString('utf8');
  } catch (error) {
    if (errnoOf(error) === 'ERR_BUFFER_TOO_LARGE')
      throw tooLarge(`over ${formatMb(maxBytes)} once decoded (${coding})`);
    throw new TransientError(
      `${endpoint}: a ${coding} body that does not decode (${(error as Error).message})`,
      { endpoint },
      'bad_body',
    );
  }
}

function formatMb(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MB`;
}
