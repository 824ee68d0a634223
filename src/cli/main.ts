import { readFileSync } from 'node:fs';
import { Command, Help, type Option } from 'commander';
import { commands, loadCommands } from './commands.js';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { reportFailure } from './fail.js';

// bvsync's own package.json: npm_package_version is the version of whatever package npm runs in, which under
// `npx bvsync` in another project is that project's.
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command('bvsync')
  .description('Keep a DuckDB warehouse in step with the Brand Visibility Customer API v1.')
  .version(version)
  .showHelpAfterError('(run with --help for usage)')
  .showSuggestionAfterError()
  .addHelpText('after', EXIT_CODES_HELP)
  // A command line commander cannot parse is thrown rather than exited on, so it ends with the usage exit code.
  .exitOverride();

// The command asked for is the only one imported; the whole help, the version and a mistyped name need them all.
const asked = commands.find((entry) => entry.name === process.argv[2]);
for (const make of asked ? [await asked.load()] : await loadCommands()) program.addCommand(make().exitOverride());
program.helpCommand('help [command]', 'Show help for a command');
styleHelp(program);

/** One help style for every command: a required option says so (commander does not). */
function styleHelp(command: Command): void {
  command.configureHelp({
    optionDescription(option: Option) {
      const text = Help.prototype.optionDescription.call(this, option);
      return option.mandatory ? `${text} (required)` : text;
    },
  });
  for (const sub of command.commands) styleHelp(sub);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportFailure(error);
}
