import { Command } from 'commander';
import { commands } from './commands.js';
import { reportFailure } from './fail.js';

const program = new Command('bvsync')
  .description('Keeps a DuckDB warehouse in step with the Brand Visibility Customer API v1.')
  .version(process.env.npm_package_version ?? '0.1.0')
  .showHelpAfterError('(run with --help for usage)')
  .showSuggestionAfterError();

for (const make of commands) program.addCommand(make());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportFailure(error);
}
