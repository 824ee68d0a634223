/** A stream name that is not in the registry (a `--streams` flag, a config's `sync.streams`, a job of an older version). */
export class UnknownStreamError extends Error {
  readonly code = 'unknown_stream';
  constructor(message: string) {
    super(message);
    this.name = 'UnknownStreamError';
  }
}
