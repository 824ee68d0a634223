import { Command, CommanderError, Help, type Option } from 'commander';
import { commands, listedCommands, loadCommands } from './commands.js';
import { EXIT_CODES_HELP, EXIT_DONE } from './exit-codes.js';
import { packageVersion } from './package-version.js';

const version = packageVersion();

// A reader that stops reading (`bvsync sql ... | head -1`) closes the pipe: a command that stops gracefully is told so as
// by SIGTERM, any other ends quietly. Only the first EPIPE acts, as every later write raises another.
let readerGone = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  if (readerGone) return;
  readerGone = true;
  if (process.listenerCount('SIGTERM') > 0) process.kill(process.pid, 'SIGTERM');
  else process.exit(EXIT_DONE);
});

const program = new Command('bvsync')
  .description('Keep a DuckDB warehouse in step with the Brand Visibility Customer API v1.')
  .version(version)
  .showHelpAfterError('(run with --help for usage)')
  .showSuggestionAfterError()
  .addHelpText('after', EXIT_CODES_HELP)
  // A command line commander cannot parse is thrown rather than exited on, so it ends with the usage exit code.
  .exitOverride();

// The command asked for is the only one imported; `bvsync --help` lists stand-ins of them all (src/cli/commands.ts);
// `help <command>` and a mistyped name need them all.
const args = process.argv.slice(2);
const asked = commands.find((entry) => entry.name === args[0]);
const rootHelp = args.length === 1 && ['--help', '-h', 'help'].includes(args[0]!);
if (asked) program.addCommand((await asked.load())().exitOverride());
else if (rootHelp) for (const command of listedCommands()) program.addCommand(command.exitOverride());
else for (const make of await loadCommands()) program.addCommand(make().exitOverride());
program.helpCommand('help [command]', 'Show help for a command');
const required = new WeakSet<Option>();
unknownOptionsFirst(program);
styleHelp(program);

/** Required options are checked after unknown ones, so `--form` is named as unknown rather than `--from` as missing. */
function unknownOptionsFirst(command: Command): void {
  const mandatory = command.options.filter((option) => option.mandatory);
  if (mandatory.length) {
    for (const option of mandatory) {
      option.mandatory = false;
      required.add(option);
    }
    // Runs after commander refused unknown options, before the action; the message is commander's own.
    command.hook('preAction', (invoked) => {
      const missing = mandatory.find((option) => invoked.getOptionValue(option.attributeName()) === undefined);
      if (missing)
        invoked.error(`error: required option '${missing.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
        });
    });
  }
  for (const sub of command.commands) unknownOptionsFirst(sub);
}

/** One help style for every command: a required option says so (commander does not). */
function styleHelp(command: Command): void {
  command.configureHelp({
    optionDescription(option: Option) {
      const text = Help.prototype.optionDescription.call(this, option);
      return option.mandatory || required.has(option) ? `${text} (required)` : text;
    },
    // A stand-in of the root help's list says how its command lists.
    subcommandTerm(sub: Command) {
      return (sub as Command & { listedAs?: string }).listedAs ?? Help.prototype.subcommandTerm.call(this, sub);
    },
  });
  for (const sub of command.commands) styleHelp(sub);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Help shown ends here with commander's code 0. Failures are reported by fail.js, imported then only: it reads the
  // process settings (and with them the config's modules), which `--help` has no need of.
  if (error instanceof CommanderError && error.exitCode === EXIT_DONE) process.exitCode = EXIT_DONE;
  else process.exitCode = (await import('./fail.js')).reportFailure(error);
}
