import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommands } from '../../src/cli/commands.js';

/**
 * The container files: what the Dockerfile copies exists, every command the compose services run is a bvsync
 * command, and — where a Docker client with the compose plugin is installed — `docker compose config` accepts the file.
 */

const REPO = join(import.meta.dirname, '..', '..');
const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
const compose = readFileSync(join(REPO, 'docker-compose.yml'), 'utf8');
const made = (await loadCommands()).map((make) => make());
const commandNames = new Set(made.map((command) => command.name()));

const composeAvailable = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0;
if (!composeAvailable) console.warn('docker compose is not installed here: `docker compose config` is not checked');

describe('the Dockerfile and docker-compose.yml', () => {
  it('the Dockerfile copies files that exist, and none of them is excluded by .dockerignore', () => {
    const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    // `COPY --from=build` copies from the build stage, not from the folder.
    const sources = [...dockerfile.matchAll(/^COPY (?!--from=)(.+) \S+$/gm)].flatMap((match) => match[1]!.split(/\s+/));
    expect(sources).toEqual(
      expect.arrayContaining(['package-lock.json', 'src', 'sql', 'bin/bvsync.js', 'scripts', 'tsconfig.build.json']),
    );
    for (const source of sources) {
      expect(existsSync(join(REPO, source)), source).toBe(true);
      expect(ignored, source).not.toContain(source);
    }
  });

  it('the image runs the compiled code (built in a stage of its own) as a user that is not root', () => {
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev /m);
    const users = [...dockerfile.matchAll(/^USER (\S+)$/gm)].map((match) => match[1]);
    expect(users.at(-1)).not.toMatch(/^(root|0)$/);
    expect(dockerfile.slice(dockerfile.lastIndexOf('FROM '))).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \[.*"bin\/bvsync\.js"\]$/m);
  });

  it('every service runs a bvsync command that exists, with the flags it has', () => {
    const runs = [...compose.matchAll(/^\s+command: \["([a-z-]+)"(.*)\]$/gm)].filter(
      (match) => match[1] !== 'redis-server',
    );
    expect(runs.map((match) => match[1]).sort()).toEqual(['dashboard', 'scheduler', 'simulate', 'worker']);
    for (const [, name, rest] of runs) {
      const command = made.find((candidate) => candidate.name() === name)!;
      const known = new Set(command.options.map((option) => option.long));
      for (const flag of rest!.match(/--[a-z-]+/g) ?? []) expect(known, `${name} ${flag}`).toContain(flag);
    }
    const [, entry] = /^CMD \["(\w+)"/m.exec(dockerfile)!;
    expect(commandNames).toContain(entry);
  });

  it.skipIf(!composeAvailable)('docker compose config accepts the file and lists every service', () => {
    const services = execFileSync('docker', ['compose', '--profile', 'demo', 'config', '--services'], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(services.split('\n').filter(Boolean).sort()).toEqual([
      'dashboard',
      'redis',
      'scheduler',
      'simulator',
      'worker',
    ]);
  });
});
