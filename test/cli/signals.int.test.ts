import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';

const CHILD = 'test/cli/fixtures/stop-signal-child.ts';
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts the child and resolves once it printed `line`; `output` keeps all it printed, to the end. */
function startChild() {
  const child = spawn(process.execPath, ['bin/run-ts.js', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const printed = (line: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!output.includes(`${line}\n`)) return;
        child.stdout.off('data', check);
        resolve();
      };
      child.stdout.on('data', check);
      check();
    });
  return { child, printed, output: () => output };
}

describe('a stop signal', () => {
  for (const [first, second] of [
    ['SIGINT', 'SIGTERM'],
    ['SIGTERM', 'SIGINT'],
    ['SIGINT', 'SIGINT'],
  ] as const) {
    it(`${first} runs the stop once, and a second signal (${second}) ends the process at once`, async () => {
      const { child, printed, output } = startChild();
      const exited = once(child, 'exit');
      await printed('ready');
      child.kill(first);
      await printed(`stopping on ${first}`);
      child.kill(second);
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: null, signal: second });
      expect(output().match(/stopping/g)).toHaveLength(1);
    });
  }
});
