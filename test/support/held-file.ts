import { type ChildProcess, spawn } from 'node:child_process';

/**
 * A process holding a DuckDB file open read-write, with a write of its own if asked, until released or killed.
 * `retitle` rewrites its command line ('' as the kernel empties that of a process exiting).
 */
export async function holdFile(path: string, { args = [] as string[], write = false } = {}) {
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { DuckDBInstance } from '@duckdb/node-api';
       import { createInterface } from 'node:readline';
       const db = await DuckDBInstance.create(${JSON.stringify(path)});
       if (${write}) await (await db.connect()).run('CREATE TABLE mine (x INTEGER)');
       createInterface({ input: process.stdin }).on('line', (line) => {
         if (line === 'release') { db.closeSync(); process.exit(0); }
         process.title = line.slice('title:'.length);
         console.log('retitled');
       });
       console.log('holding');`,
      ...args,
    ],
    { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const told = (word: string) =>
    new Promise<void>((resolve) => {
      const listen = (data: Buffer) => {
        if (!data.toString().includes(word)) return;
        holder.stdout!.off('data', listen);
        resolve();
      };
      holder.stdout!.on('data', listen);
    });
  await told('holding');
  return {
    holder,
    retitle: async (title: string) => {
      const done = told('retitled');
      holder.stdin!.write(`title:${title}\n`);
      await done;
    },
    release: async () => {
      const exited = new Promise((resolve) => holder.once('exit', resolve));
      holder.stdin!.write('release\n');
      await exited;
    },
  };
}

/** Another program (a DuckDB shell, say) holding a DuckDB file open read-write, with a write of its own, until killed. */
export async function holdOpen(path: string): Promise<ChildProcess> {
  return (await holdFile(path, { write: true })).holder;
}
