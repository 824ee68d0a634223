import { Command, Help, type Option } from 'commander';
import { commands, loadCommands } from './commands.js';
import { EXIT_CODES_HELP } from './exit-codes.js';
import { reportFailure } from './fail.js';
import { packageVersion } from './package-version.js';

const version = packageVersion();

// A reader that stops reading (`bvsync sql ... | head -1`) closes the pipe: the output is no longer wanted, as a shell's
// SIGPIPE would say. A command that stops gracefully (a run, a worker) is told so as by SIGTERM; any other ends quietly.
// Unheard, the EPIPE was an unhandled 'error' event and a stack trace.
// Only the first EPIPE acts: every later write raises another, and one met with the run's stop under way had ended the
// process at once (exit 0, the run left unfinished).
let readerGone = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  if (readerGone) return;
  readerGone = true;
  if (process.listenerCount('SIGTERM') > 0) process.kill(process.pid, 'SIGTERM');
  else process.exit(0);
});

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
const required = new WeakSet<Option>();
unknownOptionsFirst(program);
styleHelp(program);

/**
 * Required options are checked after unknown ones. Commander checks them first: `backfill --form 2026-11-18` was told
 * that --from is missing, never that --form is no option (where `--tod` got "Did you mean --to?").
 */
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
      if (missing) invoked.error(`error: required option '${missing.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
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
  });
  for (const sub of command.commands) styleHelp(sub);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportFailure(error);
}
