import { packageVersion } from './package-version.js';

// `bvsync --version` answers before anything else is imported, so it costs no command's start (bench/cli-start.ts).
// Any other command line goes to the program.
const [first, ...rest] = process.argv.slice(2);
if ((first === '--version' || first === '-V') && rest.length === 0) process.stdout.write(`${packageVersion()}\n`);
else await import('./program.js');
