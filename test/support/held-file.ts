import { type ChildProcess, spawn } from 'node:child_process';

/** Another program (a DuckDB shell, say) holding a DuckDB file open read-write, with a write of its own, until killed. */
export async function holdOpen(path: string): Promise<ChildProcess> {
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { DuckDBInstance } from '@duckdb/node-api';
       const db = await DuckDBInstance.create(${JSON.stringify(path)});
       await (await db.connect()).run('CREATE TABLE mine (x INTEGER)');
       console.log('holding'); setInterval(() => db, 1000); // referenced, so the garbage collector cannot close it`,
    ],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
  return holder;
}
