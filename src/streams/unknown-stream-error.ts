/** A stream name the registry does not hold (a `--streams` list, a config's `streams`, a job of a removed stream). */
export class UnknownStreamError extends Error {
  readonly code = 'unknown_stream';
  constructor(
    readonly names: readonly string[],
    known: readonly string[],
  ) {
    super(`unknown stream${names.length > 1 ? 's' : ''} ${names.map((name) => `"${name}"`).join(', ')}; streams: ${known.join(', ')}`);
    this.name = 'UnknownStreamError';
  }
}
