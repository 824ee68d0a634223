// Writes test/durations.json from a vitest JSON report (`npx vitest run --reporter=json --outputFile.json=REPORT.json`):
// the seconds of each file that took 10 s or more, which test/support/slow-first.ts starts first.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const repo = join(import.meta.dirname, '..', '..');
const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const seconds = Object.fromEntries(
  report.testResults
    .map((file) => [
      relative(repo, file.name).split('\\').join('/'),
      Math.round((file.endTime - file.startTime) / 1000),
    ])
    .filter(([, s]) => s >= 10)
    .sort((a, b) => b[1] - a[1]),
);
writeFileSync(join(repo, 'test', 'durations.json'), `${JSON.stringify(seconds, null, 2)}\n`);
