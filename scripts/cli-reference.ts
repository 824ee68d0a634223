/**
 * Writes docs/reference/cli.md from the commander definitions of every command (src/cli/commands.ts): usage,
 * description and options come from the code that parses them. `npm run docs` runs it; test/docs-generated.test.ts
 * fails when the page is older than the commands.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { commands } from '../src/cli/commands.js';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function commandSection(command: Command): string[] {
  const lines = [`## \`bvsync ${command.name()}\``, '', `${command.description()}.`.replace(/\.\.$/, '.'), ''];
  lines.push('```text', `bvsync ${command.name()} ${command.usage()}`.trimEnd(), '```', '');
  const options = command.options.filter((option) => !option.hidden);
  if (options.length > 0) {
    lines.push('### Options', '', '| option | what it does | default |', '|---|---|---|');
    for (const option of options) {
      const fallback = option.defaultValue === undefined ? '' : `\`${String(option.defaultValue)}\``;
      lines.push(
        `| \`${cell(option.flags)}\` | ${cell(option.description)}${option.mandatory ? ' (required)' : ''} | ${cell(fallback)} |`,
      );
    }
    lines.push('');
  }
  return lines;
}

export async function cliReference(): Promise<string> {
  const lines = [
    '# Command reference',
    '',
    'Every command of `bvsync` with its options, generated from the code that parses them (`src/cli/`).',
    'Run `npm run docs` after changing a command; a test fails while this page is older than the commands.',
    'For the tasks they serve, read [Syncing](../syncing.md) and [Operations](../operations.md).',
    '',
  ];
  for (const entry of commands) lines.push(...commandSection((await entry.load())()));
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('cli-reference.ts')) {
  writeFileSync('docs/reference/cli.md', await cliReference());
  process.stdout.write('wrote docs/reference/cli.md\n');
  process.exit(0);
}
