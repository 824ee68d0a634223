import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Help } from 'commander';
import { describe, expect, it } from 'vitest';
import { commands, loadCommands } from '../../src/cli/commands.js';
import { runBvsync } from '../support/engine.js';

/**
 * `--help` of bvsync and of every command, run through the real CLI (`node bin/bvsync.js X --help`): each is kept as
 * a committed snapshot (test/cli/help/*.txt; refresh with `npx vitest run test/cli/help.int.test.ts -u` after a
 * deliberate change), and all follow one style: an imperative, capitalised description, `-c/--config` on every
 * command that reads the config, a default said once, required options marked.
 */

const REPO = join(import.meta.dirname, '..', '..');
const names = (await loadCommands()).map((make) => make().name());
// Commands that read no config: the simulator and the schema printer.
const WITHOUT_CONFIG = new Set(['simulate', 'config-schema', 'manage-schema']);
// Descriptions owned by another change of the same issue (src/cli/read/sql.ts, src/cli/status/status.ts); empty this list once they
// are imperative too.

function help(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    // No COLUMNS: commander wraps at 80 when stdout is not a terminal, so the snapshots do not depend on who runs them.
    const { COLUMNS: _columns, ...env } = process.env;
    const child = spawn(process.execPath, [join(REPO, 'bin', 'bvsync.js'), ...args, '--help'], {
      cwd: REPO,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

const pages = new Map<string, string>();
async function pageOf(name: string): Promise<string> {
  if (!pages.has(name)) {
    const result = await help(name === 'bvsync' ? [] : [name]);
    expect(result.code).toBe(0);
    pages.set(name, result.stdout);
  }
  return pages.get(name)!;
}

describe('the stand-ins `bvsync --help` lists', () => {
  it('list each command as the command itself does, in the same order', async () => {
    const real = (await loadCommands()).map((make) => make());
    const help = new Help();
    expect(commands.map((entry) => [entry.name, entry.term, entry.description])).toEqual(
      real.map((command) => [command.name(), help.subcommandTerm(command), command.description()]),
    );
  });
});

describe('bvsync --help', () => {
  it.each(['bvsync', ...names])('%s --help matches its snapshot', async (name) => {
    await expect(await pageOf(name)).toMatchFileSnapshot(join('help', `${name}.txt`));
  });

  it('finds each command by the name its module gives it: a command runs with only its own module imported', () => {
    expect(commands.map((entry) => entry.name)).toEqual(names);
  });

  it('every command is described in the imperative with a capital first word', async () => {
    const list = await pageOf('bvsync');
    for (const name of names) {
      const line = new RegExp(`^  ${name}(?: \\S+)* {2,}(\\S+)`, 'm').exec(list);
      expect(line, name).not.toBeNull();
      const first = line![1]!;
      expect(first[0], `${name}: ${first}`).toMatch(/[A-Z]/);
      // "Checks", "Writes", "starts" read as a third person: the imperative has no -s (Sync, Run, Serve, Check ...).
      expect(first, name).not.toMatch(/[^s]s$/);
    }
  });

  it('says -c/--config on every command that reads the config, each default once, and which options are required', async () => {
    for (const name of names) {
      const page = await pageOf(name);
      if (!WITHOUT_CONFIG.has(name)) expect(page, name).toMatch(/^ {2}-c, --config <path>/m);
      expect(page.replace(/\s+/g, ' '), name).not.toMatch(/\(default[^)]*\) \(default/);
    }
    expect(await pageOf('backfill')).toMatch(/--from <YYYY-MM-DD> +first day \(required\)/);
    expect((await pageOf('export')).replace(/\s+/g, ' ')).toMatch(/--out <dir> .*\(required\)/);
    expect(await pageOf('backfill')).toContain('Usage: bvsync backfill --from <YYYY-MM-DD> [options]');
  });
});

describe('--version', () => {
  it("prints bvsync's own version, not that of the package npm runs it from (npx in another project)", async () => {
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const result = await runBvsync(['--version'], { ...process.env, npm_package_version: '97.0.0-other-project' });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });
});
