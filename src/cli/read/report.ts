import { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { CONFIG_OPTION, collect, commandToday } from '../context.js';
import { parseBrandList } from '../../config/load.js';
import { parseDay } from '../../days.js';
import { buildReport } from '../../ops/report-builder.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';
import { UsageError } from '../fail.js';
import { makeOutFolder } from './out-folder.js';
import { databasePath } from './sql.js';
import { hasDuckDbHeader } from '../../warehouse/file/database-path.js';
import { descriptionOf } from '../commands.js';

interface ReportFlags {
  out: string;
  from?: string;
  to?: string;
  brand?: string[];
  db?: string;
  config?: string;
}

export function reportCommand(): Command {
  return new Command('report')
    .description(descriptionOf('report'))
    .option('--out <file>', 'the HTML file to write', 'report.html')
    .option('--from <YYYY-MM-DD>', 'first day (default: four weeks before --to)')
    .option('--to <YYYY-MM-DD>', 'last day (default: the newest synced day before today, UTC)')
    .option(
      '--brand <id>',
      'a brand id (repeatable, or comma-separated); default: every brand in the database',
      collect,
    )
    .option('--db <path>', "DuckDB file to read (default: the config's db, env BVSYNC_DB)")
    .option(CONFIG_OPTION.flags, CONFIG_OPTION.description)
    .action(async (flags: ReportFlags) => {
      const from = flags.from === undefined ? undefined : parseDay(flags.from, '--from');
      const to = flags.to === undefined ? undefined : parseDay(flags.to, '--to');
      if (from && to && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
      const brands = flags.brand?.flatMap((text) => parseBrandList(text, '--brand'));
      // Checked before the database is read, so a bad --out costs nothing and leaves no half-written .partial file.
      const out = resolve(flags.out);
      const fileNameHint = `give the report a file name, such as ${join(flags.out, 'report.html')}`;
      if (existsSync(out) && statSync(out).isDirectory())
        throw new UsageError(`--out ${flags.out} is a folder; ${fileNameHint}`);
      // The warehouse itself, or its working file, must never be replaced by the page.
      if (existsSync(out) && hasDuckDbHeader(out))
        throw new UsageError(
          `--out ${flags.out} is a DuckDB database, which the report would replace; give the report a file name of its own, such as report.html`,
        );
      // resolve() drops the trailing separator, so `reports/` would otherwise be written as a file named `reports`.
      if (flags.out.endsWith('/') || flags.out.endsWith(sep))
        throw new UsageError(`--out ${flags.out} ends in ${sep}, so it names a folder; ${fileNameHint}`);
      makeOutFolder(dirname(out), `--out ${flags.out}`);
      const report = await buildReport({
        db: databasePath(flags),
        out: flags.out,
        from,
        to,
        brands,
        today: commandToday(),
      });
      const { data } = report;
      for (const warning of report.warnings) process.stderr.write(`bvsync: warning: ${warning}\n`);
      if (report.path) {
        const shown = data.brands.filter((brand) => brand.hasData).length;
        process.stdout.write(
          `wrote ${report.path} (${Math.round(report.bytes / 1024)} KB): ${shown} brand${shown === 1 ? '' : 's'} with data, ${data.from} to ${data.to}; open it in a browser\n`,
        );
      } else {
        process.stderr.write(
          `bvsync: nothing written to ${flags.out}: no brand asked for has data between ${data.from} and ${data.to}\n`,
        );
      }
      // A report that leaves out what was asked for is not a success, even when a page was written.
      if (report.warnings.length) process.exitCode = EXIT_NOT_DONE;
    });
}
