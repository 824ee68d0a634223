import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A TypeScript script run in its own Node process, with its stdout read line by line. */
export interface ChildScript {
  child: ChildProcessWithoutNullStreams;
  /** Resolves with the next stdout line; rejects if the process ends first. */
  nextLine(): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

export interface ScriptOptions {
  /** Its own process group, as a terminal's foreground command has: `process.kill(-pid, signal)` then signals it as Ctrl-C does. */
  detached?: boolean;
  env?: NodeJS.ProcessEnv;
}

export function runScript(script: string, args: string[], options: ScriptOptions = {}): ChildScript {
  const child = spawn(process.execPath, ['bin/run-ts.js', script, ...args], {
    stdio: 'pipe',
    detached: options.detached ?? false,
    env: options.env ?? process.env,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(line);
    else lines.push(line);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on('exit', (code, signal) => {
      for (const waiter of waiting.splice(0))
        waiter.reject(new Error(`${script} ended (${code ?? signal}) before a line: ${stderr}`));
      resolve({ code, signal, stderr });
    });
  });
  return {
    child,
    exited,
    nextLine: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (child.exitCode !== null || child.signalCode !== null)
        return Promise.reject(new Error(`${script} has ended: ${stderr}`));
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
}
