import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, readdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { MIGRATIONS_DIR } from '../../src/warehouse/paths.js';
import { readNumberedSqlFiles } from '../../src/warehouse/sql-files.js';
import { runOnFile } from '../support/engine.js';
import { tempDir } from '../support/tmp.js';
import { STREAMS } from '../../src/streams/registry.js';
import { parseConfig } from '../../src/configuration.js';

/** Every table a stream of the registry writes, from one slice each planned over a sample of every dimension. */
function streamTables(): string[] {
  const sync = parseConfig({
    sync: { phrases: ['shoe'], swotStatementIds: { '1': [1] }, conversationsByTopic: false },
  }).sync;
  const dimensions = { domains: ['a.test'], topicIds: [1], pages: ['https://a.test/'], engines: ['an-engine'] };
  return [...STREAMS.values()].flatMap((stream) => {
    const slice = stream.slices({ brandId: 1, days: ['2026-11-20'], sync, dimensions })[0];
    return slice ? stream.targets({ brandId: 1, slice }).map((target) => target.table) : [];
  });
}

// The keys of the tables the streams write (their names come from the registry) and of the bookkeeping.
const EXPECTED_KEYS: Record<string, string[]> = {
  conversations: ['brand_id', 'id'],
  conversation_brands: ['brand_id', 'conversation_id', 'ordinal'],
  tracked_urls: ['brand_id', 'id'],
  tracked_url_daily: ['brand_id', 'tracked_url_id', 'day'],
  tracked_url_daily_totals: ['brand_id', 'day'],
  topics: ['brand_id', 'id'],
  scenarios: ['brand_id', 'id'],
  visibility_topic_daily: ['brand_id', 'day', 'topic_id'],
  visibility_topic_brand_daily: ['brand_id', 'day', 'topic_id', 'brand_name'],
  visibility_scenario_daily: ['brand_id', 'day', 'scenario_id'],
  visibility_scenario_brand_daily: ['brand_id', 'day', 'scenario_id', 'brand_name'],
  citation_daily: ['brand_id', 'day', 'dimension', 'value'],
  citation_ownership_summary: ['brand_id', 'window_start', 'window_end', 'ownership'],
  citation_window_totals: ['brand_id', 'window_start', 'window_end'],
  domain_daily: ['brand_id', 'domain', 'day'],
  domain_model_daily: ['brand_id', 'domain', 'day', 'model'],
  domain_topic_daily: ['brand_id', 'domain', 'day', 'topic_id'],
  domain_scenario_daily: ['brand_id', 'domain', 'day', 'scenario_id'],
  product_ranking_daily: ['brand_id', 'day', 'metric', 'subject', 'product_id'],
  product_ranking_shopping_daily: ['brand_id', 'day', 'metric', 'subject'],
  competitors: ['brand_id', 'id'],
  templates: ['brand_id', 'id'],
  articles: ['brand_id', 'id'],
  article_status_daily: ['brand_id', 'day'],
  content_analyses: ['brand_id', 'id'],
  fanouts_cited: ['brand_id', 'target_kind', 'target', 'window_start', 'window_end', 'id'],
  swot_answers: ['brand_id', 'statement_id', 'conversation_id'],
  swot_statements: ['brand_id', 'statement_id'],
  fanouts_by_phrase: ['brand_id', 'phrase', 'id'],
  visibility_topic_engine_daily: ['brand_id', 'day', 'engine', 'topic_id'],
  visibility_topic_brand_engine_daily: ['brand_id', 'day', 'engine', 'topic_id', 'brand_name'],
  visibility_scenario_engine_daily: ['brand_id', 'day', 'engine', 'scenario_id'],
  visibility_scenario_brand_engine_daily: ['brand_id', 'day', 'engine', 'scenario_id', 'brand_name'],
  product_ranking_engine_daily: ['brand_id', 'day', 'engine', 'metric', 'subject', 'product_id'],
  product_ranking_shopping_engine_daily: ['brand_id', 'day', 'engine', 'metric', 'subject'],
  _migrations: ['version'],
  _sync_runs: ['run_id'],
  _sync_state: ['brand_id', 'stream', 'slice_key'],
  _sync_cursors: ['brand_id', 'stream'],
  _rejected_records: ['id'],
  _slice_queries: ['brand_id', 'stream', 'slice_key'],
  _publish_journal: ['seq'],
  _published_files: ['path'],
  _publish_costs: ['way'],
  // Looked up once per commit job: an index over every token would sit in DuckDB's memory budget.
  _slice_commits: [],
  // One row: the file's id (migration 016).
  _warehouse: [],
  // One row per scheduled run sync.heal followed (migration 017).
  _heal_runs: ['heal_id'],
  // Migration 018: docs/schema-drift.md.
  _schema_drift: ['table_name', 'kind', 'name', 'value'],
  _promoted_fields: ['table_name', 'field'],
};

let tmp: ReturnType<typeof tempDir>;
afterEach(() => tmp?.remove());

async function schemaOf(path: string): Promise<unknown[]> {
  const wh = await openWarehouse(path);
  try {
    return await wh.query(`SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns()
                           WHERE database_name = current_database() ORDER BY table_name, column_index`);
  } finally {
    await wh.close();
  }
}

/** sha256 of 016_warehouse_id.sql as 4f821fb added it, before 2a4145b changed a path in its comment. */
const CHECKSUM_016_AT_4F821FB = '28a7de44df1b9a475c3f2303775d363778c1b78e74f87f33a5ff8cedfcb936d9';

describe('migrations', () => {
  const latest = Math.max(...readNumberedSqlFiles(MIGRATIONS_DIR).map((f) => f.version));

  it('build every table with its key, brand_id, _extra, _synced_at and _run_id from an empty file', async () => {
    tmp = tempDir('migrate');
    const wh = await openWarehouse(join(tmp.path, 'w.duckdb'));
    try {
      expect(await wh.schemaVersion()).toBe(latest);
      const tables = new Map(wh.tables().map((t) => [t.name, t]));
      expect([...tables.keys()].sort()).toEqual(
        [...new Set([...streamTables(), ...Object.keys(EXPECTED_KEYS).filter((name) => name.startsWith('_'))])].sort(),
      );
      for (const [name, table] of tables) {
        const key = EXPECTED_KEYS[name];
        // A stream's table added since keeps its key in its migration; it is a brand's rows all the same.
        if (key) expect(table.primaryKey, name).toEqual(key);
        else expect(table.primaryKey[0], name).toBe('brand_id');
        if (name.startsWith('_')) continue;
        const columns = new Map(table.columns.map((c) => [c.name, c.dataType]));
        expect(columns.get('brand_id'), name).toBe('BIGINT');
        expect(columns.get('_extra'), name).toBe('JSON');
        expect(columns.get('_synced_at'), name).toBe('TIMESTAMP WITH TIME ZONE');
        expect(columns.get('_run_id'), name).toBe('VARCHAR');
        if (columns.has('day')) expect(columns.get('day'), name).toBe('DATE');
      }
      // Ids are BIGINT everywhere, lists of them too (migration 011): an id past 2^31 set a whole article aside.
      const articles = new Map(tables.get('articles')!.columns.map((c) => [c.name, c.dataType]));
      expect([articles.get('topic_ids'), articles.get('scenario_ids')]).toEqual(['BIGINT[]', 'BIGINT[]']);
      for (const [name, table] of tables) {
        for (const column of table.columns) {
          if (/(^id|_id|_ids)$/.test(column.name) && column.name !== 'run_id' && !column.name.startsWith('_'))
            expect(`${name}.${column.name} ${column.dataType}`).toMatch(/ (BIGINT|BIGINT\[\]|VARCHAR)$/);
        }
      }
    } finally {
      await wh.close();
    }
  });

  it('bring a database of every earlier version to the same schema as a fresh one, and apply nothing twice', async () => {
    tmp = tempDir('migrate-upgrade');
    const fresh = await schemaOf(join(tmp.path, 'fresh.duckdb'));
    // Versions as the files number them: branches merged in another order may leave a number free for a while.
    const versions = readNumberedSqlFiles(MIGRATIONS_DIR).map((f) => f.version);
    for (const version of [0, ...versions.filter((v) => v < latest)]) {
      const path = join(tmp.path, `from-${version}.duckdb`);
      const old = await openWarehouse(path, { migrationTarget: version });
      expect(await old.schemaVersion()).toBe(version);
      await old.close();
      const upgraded = await openWarehouse(path);
      expect(upgraded.migrationsApplied.map((m) => m.version)).toEqual(versions.filter((v) => v > version));
      await upgraded.close();
      expect(await schemaOf(path)).toEqual(fresh);
      const again = await openWarehouse(path);
      expect(again.migrationsApplied).toEqual([]);
      await again.close();
    }
  });

  it('refuse a database whose applied migration file was edited afterwards', async () => {
    tmp = tempDir('migrate-edited');
    const dir = join(tmp.path, 'migrations');
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const path = join(tmp.path, 'w.duckdb');
    await (await openWarehouse(path, { migrationsDir: dir })).close();
    const first = readdirSync(dir).sort()[0]!;
    appendFileSync(join(dir, first), '\n-- edited\n');
    await expect(openWarehouse(path, { migrationsDir: dir })).rejects.toMatchObject({ code: 'migration_changed' });
  });

  it("open a database that applied 016's text from before a comment's edit", async () => {
    tmp = tempDir('migrate-comment-edit');
    const path = join(tmp.path, 'w.duckdb');
    await (await openWarehouse(path)).close();
    await runOnFile(path, `UPDATE _migrations SET checksum = '${CHECKSUM_016_AT_4F821FB}' WHERE version = 16`);
    const wh = await openWarehouse(path);
    try {
      expect(await wh.schemaVersion()).toBe(latest);
    } finally {
      await wh.close();
    }
  });

  it('roll a failing migration back whole and keep the earlier versions', async () => {
    tmp = tempDir('migrate-failing');
    const dir = join(tmp.path, 'migrations');
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    writeFileSync(
      join(dir, `${String(latest + 1).padStart(3, '0')}_broken.sql`),
      'CREATE TABLE half_done (a INTEGER);\nCREATE TABLE broken (a NOT_A_TYPE);\n',
    );
    const path = join(tmp.path, 'w.duckdb');
    await expect(openWarehouse(path, { migrationsDir: dir })).rejects.toMatchObject({ code: 'migration_failed' });
    const wh = await openWarehouse(path);
    try {
      expect(await wh.schemaVersion()).toBe(latest);
      expect(wh.tables().some((t) => t.name === 'half_done')).toBe(false);
    } finally {
      await wh.close();
    }
  });
});
