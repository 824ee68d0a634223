/** A config that cannot be used; its message lists every problem, one per line, with where it is. */
export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is not a valid bvsync config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
