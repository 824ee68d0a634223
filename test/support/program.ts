import { spawn, type ChildProcess } from 'node:child_process';
import { until } from './until.js';

/** A program a test started (Prometheus, Alertmanager, a Pushgateway), its output kept for the failure message. */
export interface Program {
  child: ChildProcess;
  output(): string;
  /** Stops it (SIGTERM, then SIGKILL after 5 s) and resolves when it has exited. */
  stop(): Promise<void>;
}

export function startProgram(command: string, args: string[]): Program {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (data: Buffer) => (output = (output + data.toString()).slice(-20_000)));
  child.stderr!.on('data', (data: Buffer) => (output = (output + data.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until `url` answers 2xx (a program's readiness endpoint). */
export async function untilAnswers(url: string, what: string, program: Program, timeoutMs = 60_000): Promise<void> {
  await until(
    `${what} to answer at ${url}`,
    async () => {
      if (program.child.exitCode !== null) throw new Error(`${what} exited:\n${program.output()}`);
      return fetch(url).then(
        (response) => response.ok,
        () => false,
      );
    },
    timeoutMs,
    200,
  );
}
