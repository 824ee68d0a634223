/** A desired-state file (or `--from-sql` source) that cannot be used: each problem names where it is and what to do. */
export class ManageFileError extends Error {
  readonly code = 'manage_file_invalid';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} cannot be used:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ManageFileError';
  }
}
