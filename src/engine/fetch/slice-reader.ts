import type { Redis } from 'ioredis';
import type { ApiClient } from '../../api/index.js';
import { withLogContext } from '../../log.js';
import { getStream } from '../../streams/registry.js';
import { runSlice, type SliceReadResult } from '../../streams/run-slice.js';
import { RedisChunkSink, type HeldChunk } from './chunk-store.js';
import { sliceLogFields, type FetchJobData } from '../jobs/job-data.js';
import type { RequestTallies, Tally } from '../run/request-tally.js';
import type { Availability } from './availability.js';
import { watchRun } from '../run/run-cancel-watch.js';
import { RunStore } from '../run/run-store.js';
import type { SyncConfig } from '../../configuration.js';

export interface SliceRead {
  result: SliceReadResult;
  /** Chunks under the token, for the commit job, the held one included. */
  chunks: number;
  /** The last chunk, held back to be written in the same round trip as the commit job's add (`holdLastChunk`). */
  held?: HeldChunk;
}

/**
 * The part of a fetch job that costs CPU: paging, validating, mapping and encoding chunks into Redis under `token`.
 * `tally` counts in place even if the read throws; a throw drops its chunks; a cancelled run throws RunCancelledError.
 */
export interface SliceReader {
  read(data: FetchJobData, token: string, tally: Tally): Promise<SliceRead>;
}

export interface InlineSliceReaderOptions {
  redis: Redis;
  prefix: string;
  client: ApiClient;
  sync: SyncConfig;
  tallies: RequestTallies;
  /** Rows per chunk; default 5,000. */
  chunkRows?: number;
  /** Aborted on shutdown so in-flight requests end quickly. */
  signal?: AbortSignal;
  /** The API's availability to this thread's calls: a run's give-up stops its reads unless they were served since. */
  availability: Pick<Availability, 'stopsRead'>;
  /** Hands the last chunk back unwritten (`SliceRead.held`) rather than writing it; default false. */
  holdLastChunk?: boolean;
}

/** Reads slices on the thread that calls it (`sync.fetchThreads` 0, and inside each fetch thread). */
export function inlineSliceReader(options: InlineSliceReaderOptions): SliceReader {
  const runs = new RunStore(options.redis, options.prefix);
  return {
    async read(data, token, tally) {
      const sink = new RedisChunkSink(options.redis, options.prefix, token, data.runId, {
        holdLast: options.holdLastChunk,
      });
      const cancel = watchRun(runs, data.runId, { parent: options.signal, availability: options.availability });
      const context = {
        client: options.client,
        brandId: data.brandId,
        slice: data.slice,
        sync: options.sync,
        signal: cancel.signal,
      };
      try {
        const result = await options.tallies.run(tally, () =>
          // The API client is shared by every job of the process; its retry and 429 lines find the slice through this.
          withLogContext(sliceLogFields(data), () =>
            runSlice(getStream(data.stream), context, sink, { chunkRows: options.chunkRows }),
          ),
        );
        const held = sink.takeHeld();
        return { result, chunks: sink.chunks, ...(held ? { held } : {}) };
      } catch (error) {
        await sink.reset().catch(() => {});
        throw error;
      } finally {
        cancel.stop();
      }
    },
  };
}
