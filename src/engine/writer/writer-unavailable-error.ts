/** This process holds the writer lease but cannot open the working database, and waiting longer will not help. */
export class WriterUnavailableError extends Error {
  readonly code = 'writer_unavailable';
  constructor(databasePath: string, cause: Error) {
    // The cause says why in its own words: another program holding the file (DatabaseLockedError) says so; a folder
    // that cannot be created names the folder and the OS reason; a file that is not a database says that.
    super(`cannot open the working database beside ${databasePath}: ${cause.message}`, { cause });
    this.name = 'WriterUnavailableError';
  }
}
