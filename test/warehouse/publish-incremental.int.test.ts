import { afterEach, describe, expect, it } from 'vitest';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { MIGRATIONS_DIR, workingPathFor } from '../../src/warehouse/paths.js';
import { readNumberedSqlFiles } from '../../src/warehouse/sql-files.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { preparePublishClone } from '../../src/warehouse/publish/publish.js';
import { runOnFile } from '../support/engine.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from './batches.js';

let tmp: ReturnType<typeof tempDir>;
afterEach(() => tmp?.remove());

const LATEST = Math.max(...readNumberedSqlFiles(MIGRATIONS_DIR).map((file) => file.version));

/** Every table and view of a published file with all its rows in a fixed order; the publish marker left out. */
async function contentsOf(path: string): Promise<Record<string, unknown[]>> {
  const db = await openReadOnly(path);
  try {
    const names = await db.connection.runAndReadAll(
      `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND table_name <> '_published'
       UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND NOT internal ORDER BY 1`,
    );
    const contents: Record<string, unknown[]> = {};
    for (const [name] of names.getRowsJS() as Array<[string]>) {
      contents[name] = (await db.connection.runAndReadAll(`SELECT * FROM "${name}" ORDER BY ALL`)).getRowsJS();
    }
    return contents;
  } finally {
    db.close();
  }
}

async function rowCount(path: string, table: string): Promise<number> {
  const db = await openReadOnly(path);
  try {
    return Number((await db.connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRowsJS()[0]![0]);
  } finally {
    db.close();
  }
}

/** Makes a full copy of the warehouse's state at `reference`: `published` must hold the same rows. */
async function expectSameAsFullCopy(wh: Warehouse, published: string, reference: string): Promise<void> {
  await wh.publish(reference, { incremental: false });
  expect(await contentsOf(published)).toEqual(await contentsOf(reference));
}

/** Publishes incrementally, then checks the copy against a full copy of the same state; returns the publish's mode. */
async function publishAndCompare(wh: Warehouse, published: string, reference: string): Promise<string> {
  const result = await wh.publish(published);
  await expectSameAsFullCopy(wh, published, reference);
  return result.mode;
}

const replaceDay = (runId: string, day: string, n: number, firstId: number) =>
  sliceBatch({
    runId,
    stream: 'conversations',
    sliceKey: day,
    day,
    writes: [
      { table: 'conversations', mode: 'replace', scope: { brand_id: 7, day }, rows: conversationRows(day, n, firstId) },
    ],
  });

const mergeRows = (runId: string, day: string, n: number, firstId: number, model: string) =>
  sliceBatch({
    runId,
    stream: 'conversations',
    sliceKey: `topic-3/${day}`,
    day,
    writes: [
      {
        table: 'conversations',
        mode: 'merge',
        rows: conversationRows(day, n, firstId).map((row) => ({ ...row, model, topic_id: 3 })),
      },
    ],
  });

/** A working file in a new folder with a day of 10 answers loaded and published once, and closed. */
async function publishedOnce(): Promise<{ published: string; working: string }> {
  tmp = tempDir('publish-incremental');
  const published = join(tmp.path, 'bv.duckdb');
  const working = workingPathFor(published);
  const wh = await openWarehouse(working);
  try {
    await wh.loadSlice(replaceDay('run-1', '2026-11-18', 10, 1));
    await wh.publish(published);
  } finally {
    await wh.close();
  }
  return { published, working };
}

describe('incremental publishing', () => {
  it('gives the same tables as a full copy after replaces that delete rows, merges, rejects and a migration', async () => {
    tmp = tempDir('publish-incremental');
    const published = join(tmp.path, 'bv.duckdb');
    const reference = join(tmp.path, 'reference.duckdb');
    const working = workingPathFor(published);

    // The version before the newest migration published its own views, which may not read this code's views' columns.
    const oldViews = join(tmp.path, 'old-views');
    mkdirSync(oldViews);
    let wh = await openWarehouse(working, { migrationTarget: LATEST - 1, viewsDir: oldViews });
    try {
      await wh.loadSlice(replaceDay('run-1', '2026-11-18', 40, 1));
      await wh.loadSlice(replaceDay('run-1', '2026-11-19', 30, 100));
      expect((await wh.publish(published)).mode).toBe('full');

      // A re-load with fewer rows deletes some; a new day adds some; a reject arrives and is replaced later.
      await wh.loadSlice(replaceDay('run-2', '2026-11-18', 25, 1));
      await wh.loadSlice({
        ...replaceDay('run-2', '2026-11-20', 10, 200),
        rejects: [{ raw: { id: 'x' }, issues: ['id: Expected number'], source: 'test' }],
        state: { status: 'incomplete', rows: 10, totalRows: 11, attempts: 1, requests: 1, lastError: 'one reject' },
      });
      expect(await publishAndCompare(wh, published, reference)).toBe('incremental');
      expect(await rowCount(published, 'conversations')).toBe(25 + 30 + 10);
      expect(await rowCount(published, '_rejected_records')).toBe(1);

      // A merge updates rows of an earlier day and adds new ones, beside a replace in the same table.
      await wh.loadSlice(mergeRows('run-3', '2026-11-19', 35, 100, 'merged-engine'));
      await wh.loadSlice(replaceDay('run-3', '2026-11-20', 10, 200));
      expect(await publishAndCompare(wh, published, reference)).toBe('incremental');
      expect(await rowCount(published, '_rejected_records')).toBe(0);
    } finally {
      await wh.close();
    }

    // A migration since the last publish: the copy's schema is stale, so the whole file is copied once.
    wh = await openWarehouse(working);
    try {
      await wh.loadSlice(replaceDay('run-4', '2026-11-21', 5, 300));
      const afterMigration = await wh.publish(published);
      expect(afterMigration.mode).toBe('full');
      expect(afterMigration.fullCopyReason).toMatch(/migrations ran/);
      await wh.loadSlice(replaceDay('run-5', '2026-11-21', 2, 300));
      await wh.loadSlice(mergeRows('run-5', '2026-11-18', 3, 1, 'again'));
      expect(await publishAndCompare(wh, published, reference)).toBe('incremental');
      // Applied entries are pruned: the journal holds only what no copy has yet, and its newest entry as its head.
      expect(await wh.query('SELECT count(*) AS n FROM _publish_journal')).toEqual([{ n: 1 }]);
    } finally {
      await wh.close();
    }
  });

  it('copies the whole file when the published copy came from another working file, is no database, or the views changed', async () => {
    tmp = tempDir('publish-other-origin');
    const published = join(tmp.path, 'bv.duckdb');
    const first = await openWarehouse(join(tmp.path, 'first.duckdb'));
    try {
      await first.loadSlice(replaceDay('run-1', '2026-11-18', 40, 1));
      await first.publish(published);
    } finally {
      await first.close();
    }
    const second = await openWarehouse(join(tmp.path, 'second.duckdb'));
    try {
      await second.loadSlice(replaceDay('run-1', '2026-11-19', 3, 1));
      const other = await second.publish(published);
      expect(other.mode).toBe('full');
      expect(other.fullCopyReason).toMatch(/another working file/);
      expect(await rowCount(published, 'conversations')).toBe(3);
      // A published file that is no DuckDB database at all is replaced, not a reason to fail.
      writeFileSync(published, 'not a database');
      const replaced = await second.publish(published);
      expect(replaced.mode).toBe('full');
      expect(replaced.fullCopyReason).toMatch(/could not be updated/);
      expect(await rowCount(published, 'conversations')).toBe(3);
      const views = await second.publish(published, { viewsDir: join(tmp.path) });
      expect(views.mode).toBe('full');
      expect(views.fullCopyReason).toMatch(/views changed/);
    } finally {
      await second.close();
    }
  });

  it('brings a clone begun during the run up to date, the same as a full copy, and leaves no clone behind', async () => {
    tmp = tempDir('publish-prepared');
    const published = join(tmp.path, 'bv.duckdb');
    const wh = await openWarehouse(workingPathFor(published));
    try {
      await wh.loadSlice(replaceDay('run-1', '2026-11-18', 40, 1));
      await wh.publish(published);
      const whole = wh.preparePublish(published);
      await wh.loadSlice(replaceDay('run-2', '2026-11-19', 30, 100));
      await wh.loadSlice(replaceDay('run-2', '2026-11-18', 5, 1));
      expect(await whole).toBe(true);
      const [clone] = readdirSync(tmp.path).filter((name) => name.includes('.tmp-'));
      const cloned = statSync(join(tmp.path, clone!)).ino;
      expect(await publishAndCompare(wh, published, join(tmp.path, 'reference.duckdb'))).toBe('incremental');
      // The clone itself became the published file: the publish copied nothing more.
      expect(statSync(published).ino).toBe(cloned);
      expect(await rowCount(published, 'conversations')).toBe(35);
      // Begun and never published (the run went to another process): closing the warehouse removes it.
      expect(await wh.preparePublish(published)).toBe(true);
      expect(readdirSync(tmp.path).filter((name) => name.includes('.tmp-'))).toHaveLength(1);
    } finally {
      await wh.close();
    }
    expect(readdirSync(tmp.path).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('leaves no clone behind when the publish fails before using it, or is refused by a warehouse closing', async () => {
    tmp = tempDir('publish-prepared-failed');
    const published = join(tmp.path, 'bv.duckdb');
    const clones = () => readdirSync(tmp.path).filter((name) => name.includes('.tmp-'));
    const wh = await openWarehouse(workingPathFor(published));
    try {
      await wh.loadSlice(replaceDay('run-1', '2026-11-18', 40, 1));
      await wh.publish(published);
      expect(await wh.preparePublish(published)).toBe(true);
      expect(clones()).toHaveLength(1);
      await expect(wh.publish(published, { viewsDir: join(tmp.path, 'no-such-views') })).rejects.toThrow();
      expect(clones()).toEqual([]);
      expect(await rowCount(published, 'conversations')).toBe(40);
      expect(await wh.preparePublish(published)).toBe(true);
    } finally {
      const closing = wh.close();
      await expect(wh.publish(published)).rejects.toThrow('closed');
      await closing;
    }
    expect(clones()).toEqual([]);
  });

  it('drops a clone of a published file that another publish replaced since, which the journal no longer reaches', async () => {
    tmp = tempDir('publish-prepared-stale');
    const published = join(tmp.path, 'bv.duckdb');
    const wh = await openWarehouse(workingPathFor(published));
    try {
      await wh.loadSlice(replaceDay('run-1', '2026-11-18', 40, 1));
      await wh.publish(published);
      const stale = preparePublishClone(published)!;
      await stale.done;
      // Another publish in between prunes the journal past the clone: applying what is left to it would lose run-2.
      await wh.loadSlice(replaceDay('run-2', '2026-11-19', 30, 100));
      await wh.publish(published);
      await wh.loadSlice(replaceDay('run-3', '2026-11-20', 7, 200));
      const result = await wh.publish(published, { prepared: stale });
      expect(result.mode).toBe('incremental');
      expect(await rowCount(published, 'conversations')).toBe(77);
      await expectSameAsFullCopy(wh, published, join(tmp.path, 'reference.duckdb'));
      expect(readdirSync(tmp.path).filter((name) => name.includes('.tmp-'))).toEqual([]);
    } finally {
      await wh.close();
    }
  });

  it('brings a copy up to date with nothing to apply without copying the file, and copies it whole when the journal no longer reaches it', async () => {
    tmp = tempDir('publish-journal-head');
    const published = join(tmp.path, 'bv.duckdb');
    const reference = join(tmp.path, 'reference.duckdb');
    const wh = await openWarehouse(workingPathFor(published));
    try {
      await wh.loadSlice(replaceDay('run-1', '2026-11-18', 40, 1));
      await wh.publish(published);
      // A publish with no slice loaded since (a cancelled run recorded, its calls added): the bookkeeping only.
      await wh.startRun({ runId: 'run-2', kind: 'sync', brands: [7], streams: ['conversations'] });
      expect(await publishAndCompare(wh, published, reference)).toBe('incremental');
      expect(await publishAndCompare(wh, published, reference)).toBe('incremental');
      // A copy of an earlier publish put back: the publish after it pruned the entries it lacks.
      const earlier = join(tmp.path, 'earlier.duckdb');
      writeFileSync(earlier, readFileSync(published));
      await wh.loadSlice(replaceDay('run-2', '2026-11-18', 40, 1000));
      await wh.publish(published);
      await wh.loadSlice(replaceDay('run-3', '2026-11-20', 5, 2000));
      renameSync(earlier, published);
      const result = await wh.publish(published);
      expect(result).toMatchObject({
        mode: 'full',
        fullCopyReason: 'the journal no longer reaches back to the published copy',
      });
      await expectSameAsFullCopy(wh, published, reference);
    } finally {
      await wh.close();
    }
  });

  it('copies the whole file when the working file was put back from a backup, though its journal numbers go on as before', async () => {
    const { published, working } = await publishedOnce();
    copyFileSync(working, join(tmp.path, 'backup.duckdb'));
    let wh = await openWarehouse(working);
    await wh.loadSlice(
      sliceBatch({
        runId: 'run-2',
        stream: 'conversations',
        sliceKey: '2026-11-19',
        day: '2026-11-19',
        writes: [
          {
            table: 'conversations',
            mode: 'replace',
            scope: { brand_id: 7, day: '2026-11-19' },
            rows: conversationRows('2026-11-19', 10, 100).map((row) => ({ ...row, model: 'lost' })),
          },
        ],
      }),
    );
    await wh.publish(published);
    await wh.close();
    // The working file is put back from the backup and the same days are loaded again, and one more: the journal
    // numbers these as the copy's own, which the copy holds as the lost day's.
    copyFileSync(join(tmp.path, 'backup.duckdb'), working);
    wh = await openWarehouse(working);
    try {
      await wh.loadSlice(replaceDay('run-3', '2026-11-19', 10, 100));
      await wh.loadSlice(replaceDay('run-3', '2026-11-20', 10, 200));
      const result = await wh.publish(published);
      expect(result.mode).toBe('full');
      expect(result.fullCopyReason).toMatch(/put back from a backup/);
      await expectSameAsFullCopy(wh, published, join(tmp.path, 'reference.duckdb'));
      // And the copy it made is brought up to date again from then on.
      await wh.loadSlice(replaceDay('run-4', '2026-11-21', 5, 300));
      expect(await publishAndCompare(wh, published, join(tmp.path, 'reference2.duckdb'))).toBe('incremental');
    } finally {
      await wh.close();
    }
  });

  it('publishes from a working file made of the published copy (its marker dropped), copying it whole first', async () => {
    const { published, working } = await publishedOnce();
    rmSync(working);
    copyFileSync(published, working);
    const wh = await openWarehouse(working);
    try {
      await wh.loadSlice(replaceDay('run-2', '2026-11-18', 4, 1));
      const first = await wh.publish(published);
      expect(first.mode).toBe('full');
      expect(await rowCount(published, 'conversations')).toBe(4);
      await wh.loadSlice(replaceDay('run-3', '2026-11-19', 3, 50));
      expect(await publishAndCompare(wh, published, join(tmp.path, 'reference.duckdb'))).toBe('incremental');
    } finally {
      await wh.close();
    }
  });

  it('copies the whole file when a migration numbered below the newest one was applied since', async () => {
    tmp = tempDir('publish-incremental');
    const migrations = join(tmp.path, 'migrations');
    mkdirSync(migrations);
    cpSync(MIGRATIONS_DIR, migrations, { recursive: true });
    writeFileSync(join(migrations, `${LATEST + 10}_later.sql`), 'CREATE TABLE later_marker (x INTEGER);');
    const published = join(tmp.path, 'bv.duckdb');
    let wh = await openWarehouse(workingPathFor(published), { migrationsDir: migrations });
    await wh.loadSlice(replaceDay('run-1', '2026-11-18', 10, 1));
    await wh.publish(published);
    await wh.close();
    writeFileSync(join(migrations, `${LATEST + 1}_in_between.sql`), 'UPDATE conversations SET model = upper(model);');
    wh = await openWarehouse(workingPathFor(published), { migrationsDir: migrations });
    try {
      const result = await wh.publish(published);
      expect(result).toMatchObject({ mode: 'full', fullCopyReason: expect.stringContaining('one below the newest') });
      await expectSameAsFullCopy(wh, published, join(tmp.path, 'reference.duckdb'));
    } finally {
      await wh.close();
    }
  });

  it("copies the whole file when the published copy was written to since it was published: an analyst's checkpointed edits do not stay", async () => {
    const { published, working } = await publishedOnce();
    // An analyst opens the published file read-write (docs/tables.md asks not to), edits rows and checkpoints.
    await runOnFile(published, "UPDATE conversations SET model = 'edited by hand' WHERE id <= 3", 'CHECKPOINT');
    const wh = await openWarehouse(working);
    try {
      await wh.loadSlice(replaceDay('run-2', '2026-11-19', 10, 100));
      const result = await wh.publish(published);
      expect(result.mode).toBe('full');
      expect(result.fullCopyReason).toMatch(/^the published copy was written to since bvsync published it/);
      expect(await rowCount(published, "conversations WHERE model = 'edited by hand'")).toBe(0);
      expect(await rowCount(published, 'conversations')).toBe(20);
      // Left as bvsync published it, the copy is brought up to date again.
      await wh.loadSlice(replaceDay('run-3', '2026-11-20', 10, 200));
      expect(await publishAndCompare(wh, published, join(tmp.path, 'reference.duckdb'))).toBe('incremental');
    } finally {
      await wh.close();
    }
  });

  it('moves aside a write-ahead log left beside the published file by a read-write session, so the new file opens with its own rows', async () => {
    tmp = tempDir('publish-incremental');
    const published = join(tmp.path, 'bv.duckdb');
    const wh = await openWarehouse(workingPathFor(published));
    try {
      await wh.loadSlice(replaceDay('run-1', '2026-11-18', 10, 1));
      await wh.publish(published);
      // An analyst opens the published file read-write, writes, and keeps the session open: the write waits in the WAL.
      const script = join(tmp.path, 'analyst.mjs');
      writeFileSync(
        script,
        `import { DuckDBInstance } from ${JSON.stringify(createRequire(import.meta.url).resolve('@duckdb/node-api'))};
         const db = await DuckDBInstance.create(${JSON.stringify(published)});
         const c = await db.connect();
         await c.run('CREATE TABLE scratch AS SELECT id FROM conversations'); await c.run('CHECKPOINT');
         await c.run('DELETE FROM conversations WHERE id <= 4');
         process.stdout.write('ready');
         // Held until killed: a session the garbage collector reclaims closes, checkpoints and deletes the WAL.
         setInterval(() => [db, c], 1000);`,
      );
      const analyst = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        await new Promise<void>((ready, fail) => {
          analyst.stdout.once('data', () => ready());
          analyst.once('exit', (code) => fail(new Error(`the analyst's session ended (${code})`)));
        });
        expect(statSync(`${published}.wal`).size).toBeGreaterThan(0);
        await wh.loadSlice(replaceDay('run-2', '2026-11-19', 10, 100));
        for (const incremental of [true, false]) {
          const result = await wh.publish(published, { incremental });
          expect(result.staleWal).toMatch(/bv\.duckdb\.wal\.replaced-/);
          expect(existsSync(result.staleWal!)).toBe(true);
          expect(await rowCount(published, 'conversations')).toBe(20);
          if (incremental) writeFileSync(`${published}.wal`, readFileSync(result.staleWal!));
        }
      } finally {
        analyst.kill('SIGKILL');
      }
    } finally {
      await wh.close();
    }
  });
});
