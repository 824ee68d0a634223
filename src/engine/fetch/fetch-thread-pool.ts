import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ApiRequestEvent } from '../../api/index.js';
import { redactSecrets, type Logger } from '../../log.js';
import {
  reviveError,
  type FetchThreadSetup,
  type FromFetchThread,
  type ReadSliceRequest,
  type ToFetchThread,
} from './fetch-thread-messages.js';
import { currentQuotaClass } from '../../api/rate/request-quota.js';
import type { Tally } from '../run/request-tally.js';
import type { SliceRead, SliceReader } from './slice-reader.js';

/**
 * The thread's module beside this one: a source run through tsx, compiled (`dist/`), or the bundle's entry beside the
 * chunk that holds this code (`dist/bundle/`, as bin/bvsync.js runs; scripts/bundle-cli.js).
 */
const RUNS_SOURCES = import.meta.url.endsWith('.ts');
const THREAD_ENTRY = new URL(`./fetch-thread.${RUNS_SOURCES ? 'ts' : 'js'}`, import.meta.url).href;

/**
 * tsx's `register()` hooks the main thread only, so a thread run from sources (tests, benches) registers tsx itself.
 * Compiled, it needs none: tsx is a development dependency only.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(workerData.tsx ? import(workerData.tsx).then((tsx) => tsx.register()) : Promise.resolve())
  .then(() => import(workerData.entry))
  .catch((error) => { setImmediate(() => { throw error; }); });
`;

/** tsx's ESM `register` by file URL: an eval'd thread resolves bare names from the working folder, not from bvsync. */
function tsxRegisterUrl(): string {
  // The package's "import" condition of `tsx/esm/api`, beside the "require" one that createRequire resolves.
  return pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
}

/**
 * Each thread's own V8 heap would otherwise take the process's `--max-old-space-size` again and let garbage grow into
 * it; a thread holds only a few pages and one chunk per slice it reads.
 */
const THREAD_OLD_SPACE_MB = 96;

export interface FetchThreadPoolOptions {
  /** Threads to start; at least 1. */
  threads: number;
  setup: FetchThreadSetup;
  /** Prints the threads' log lines. */
  log: Logger;
  /** Hears every HTTP attempt of every thread (process-wide counters, metrics, pausing the queue on a 429). */
  onRequest: (event: ApiRequestEvent) => void;
  /** Aborts every request in flight in every thread. */
  signal?: AbortSignal;
  /** Ends every thread's calls' waits (a 429's, the budget's) once the process begins to stop. */
  stopWaiting?: AbortSignal;
}

interface PendingRead {
  tally: Tally;
  resolve: (read: SliceRead) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, PendingRead>;
  alive: boolean;
  /** Why the thread ended, for the reads it still held. */
  failure: string | undefined;
}

/**
 * Runs fetch jobs' reads in `sync.fetchThreads` worker threads, so the main thread spends its time loading. A failed
 * read keeps its error class; a dead thread fails its reads and restarts (test/engine/fetch-thread-pool.int.test.ts).
 */
export class FetchThreadPool implements SliceReader {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  private readonly tsx = RUNS_SOURCES ? tsxRegisterUrl() : undefined;

  constructor(private readonly options: FetchThreadPoolOptions) {
    for (let index = 0; index < Math.max(1, options.threads); index++) this.slots.push(this.start());
    options.signal?.addEventListener('abort', () => this.broadcast({ type: 'abort' }), { once: true });
    options.stopWaiting?.addEventListener('abort', () => this.broadcast({ type: 'stop-waiting' }), { once: true });
  }

  read(data: ReadSliceRequest['data'], token: string, tally: Tally): Promise<SliceRead> {
    if (this.closed) return Promise.reject(new Error('the fetch threads are closed'));
    const slot = this.leastBusy();
    const id = this.nextId++;
    return new Promise<SliceRead>((resolve, reject) => {
      slot.pending.set(id, { tally, resolve, reject });
      // The fetch job's class (withQuotaClass) does not cross the thread boundary by itself: it goes with the slice.
      const quotaClass = currentQuotaClass();
      const request: ToFetchThread = { type: 'read', id, data, token, tally, ...(quotaClass ? { quotaClass } : {}) };
      slot.worker.postMessage(request);
    });
  }

  /** Ends every thread; reads still running fail (the host closes the fetch worker before). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate().catch(() => 0)));
  }

  private leastBusy(): Slot {
    let best = 0;
    for (let index = 0; index < this.slots.length; index++) {
      if (!this.slots[index]!.alive) this.slots[index] = this.start();
      if (this.slots[index]!.pending.size < this.slots[best]!.pending.size) best = index;
    }
    return this.slots[best]!;
  }

  private start(): Slot {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { setup: this.options.setup, entry: THREAD_ENTRY, tsx: this.tsx },
      resourceLimits: { maxOldGenerationSizeMb: THREAD_OLD_SPACE_MB },
    });
    const slot: Slot = { worker, pending: new Map(), alive: true, failure: undefined };
    worker.on('message', (message: FromFetchThread) => this.receive(slot, message));
    worker.on('error', (error) => (slot.failure = redactSecrets(error.message)));
    worker.on('exit', (code) => {
      slot.alive = false;
      if (this.closed && slot.pending.size === 0) return;
      const why = `a fetch thread ended (exit code ${code}${slot.failure ? `: ${slot.failure}` : ''}) while reading the slice`;
      if (!this.closed)
        this.options.log.error(
          { code, err: slot.failure },
          'a fetch thread ended; the slices it was reading will be tried again',
        );
      for (const pending of slot.pending.values()) pending.reject(new Error(why));
      slot.pending.clear();
    });
    if (this.options.signal?.aborted) worker.postMessage({ type: 'abort' } satisfies ToFetchThread);
    if (this.options.stopWaiting?.aborted) worker.postMessage({ type: 'stop-waiting' } satisfies ToFetchThread);
    return slot;
  }

  private receive(slot: Slot, message: FromFetchThread): void {
    switch (message.type) {
      case 'request':
        return this.options.onRequest(message.event);
      case 'log':
        return relog(this.options.log, message.line);
      case 'read':
      case 'failed': {
        const pending = slot.pending.get(message.id);
        if (!pending) return;
        slot.pending.delete(message.id);
        Object.assign(pending.tally, message.tally);
        if (message.type === 'read') pending.resolve({ result: message.result, chunks: message.chunks });
        else pending.reject(reviveError(message.error));
      }
    }
  }

  private broadcast(message: ToFetchThread): void {
    for (const slot of this.slots) if (slot.alive) slot.worker.postMessage(message);
  }
}

/** A thread's pino line printed by the process logger, which masks secrets again and knows where lines go. */
function relog(log: Logger, line: string): void {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    log.warn({ line: redactSecrets(line) }, 'a fetch thread logged a line that is not JSON');
    return;
  }
  const { level, time: _time, pid: _pid, hostname: _hostname, msg, ...fields } = record;
  const label = typeof level === 'number' ? log.levels.labels[level] : undefined;
  const method =
    label === 'trace' || label === 'debug' || label === 'warn' || label === 'error' || label === 'fatal'
      ? label
      : 'info';
  log[method](fields, typeof msg === 'string' ? msg : '');
}
