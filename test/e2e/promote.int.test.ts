import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runOnFile,
  spawnBvsync,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';
import { backfillWithRunningWorkers } from '../ops/host-run.js';
import { until } from '../support/until.js';
import { tempDir } from '../support/tmp.js';
import { parseConfig, type Config } from '../../src/configuration.js';

/**
 * `sync.promote` on a warehouse that already holds a field in `_extra`: the writer adds the column and fills it for
 * every stored row with no API call, the values equal those of a warehouse that had the setting from its first sync,
 * and removing the setting keeps the column's data while new loads keep the field in `_extra` again.
 */

const PROMOTE: Config['sync']['promote'] = { conversations: { x_score: 'DOUBLE', x_unlisted_field: 'JSON' } };
const WINDOW = { from: '2026-11-18', to: '2026-11-19' };
const ROWS_SQL = `SELECT id, x_score, CAST(x_unlisted_field AS VARCHAR) AS x_unlisted_field, CAST(_extra AS VARCHAR) AS extra
                  FROM conversations ORDER BY id`;

let later: EngineFixture;
let fresh: EngineFixture;
let requestsDuringPromotion: number;
let promotedRows: Array<Record<string, unknown>>;
let freshRows: Array<Record<string, unknown>>;

function withPromote(fx: EngineFixture, promote: Config['sync']['promote']): Config {
  return { ...fx.config, sync: { ...fx.config.sync, promote } };
}

/** Runs a writer host with the config until `work` is done. */
async function withHost<T>(fx: EngineFixture, config: Config, work: (host: WorkerHost) => Promise<T>): Promise<T> {
  const host = new WorkerHost({ config, redisUrl: fx.redisUrl, log: fx.log, leaseTtlMs: 2_000 });
  await host.start();
  try {
    return await work(host);
  } finally {
    await host.stop();
  }
}

async function hasColumn(path: string, column: string): Promise<boolean> {
  const rows = await queryFile(
    path,
    `SELECT count(*)::INTEGER AS n FROM duckdb_columns() WHERE table_name = 'conversations' AND column_name = $1`,
    [column],
  ).catch(() => [{ n: 0 }]);
  return rows[0]!.n === 1;
}

beforeAll(async () => {
  const sim = { brands: 1, days: 4 };
  later = await engineFixture('promote-later', { sim });
  fresh = await engineFixture('promote-fresh', { sim });
  for (const fx of [later, fresh]) fx.sim.setKnobs({ extraFieldShare: 0.4 });
  await withHost(later, later.config, () =>
    backfillWithRunningWorkers(later, { streams: ['conversations'], ...WINDOW }),
  );
  await withHost(fresh, withPromote(fresh, PROMOTE), () =>
    backfillWithRunningWorkers(fresh, { streams: ['conversations'], ...WINDOW }),
  );
  const before = later.sim.requestLog().length;
  await withHost(later, withPromote(later, PROMOTE), () =>
    until('the promoted columns are published', () => hasColumn(later.config.db, 'x_score'), 60_000),
  );
  requestsDuringPromotion = later.sim.requestLog().length - before;
  promotedRows = await queryFile(later.config.db, ROWS_SQL);
  freshRows = await queryFile(fresh.config.db, ROWS_SQL);
}, 180_000);
afterAll(async () => {
  await later?.cleanup();
  await fresh?.cleanup();
});

describe('promoting a field of _extra', () => {
  it('fills the column for every stored row with no API call', () => {
    expect(requestsDuringPromotion).toBe(0);
    expect(promotedRows.filter((row) => row.x_score === 0.5).length).toBeGreaterThan(0);
    expect(promotedRows.every((row) => row.extra === null || !String(row.extra).includes('x_score'))).toBe(true);
  });

  it('gives the values a warehouse with the setting from its first sync loaded', () => {
    expect(freshRows.length).toBeGreaterThan(0);
    expect(promotedRows).toEqual(freshRows);
  });

  it('marks the fields promoted in v_schema_drift', async () => {
    const drift = await queryFile(
      later.config.db,
      `SELECT name, promoted_as FROM v_schema_drift WHERE table_name = 'conversations' AND kind = 'field' ORDER BY name`,
    );
    expect(drift).toEqual([
      { name: 'x_score', promoted_as: 'DOUBLE' },
      { name: 'x_unlisted_field', promoted_as: 'JSON' },
    ]);
  });

  it('keeps the column and its data when the setting is removed; new loads keep the field in _extra', async () => {
    await withHost(later, later.config, () =>
      backfillWithRunningWorkers(later, { streams: ['conversations'], from: '2026-11-20', to: '2026-11-20' }),
    );
    const kept = await queryFile(
      later.config.db,
      `SELECT count(*)::INTEGER AS n FROM conversations WHERE "day" <= '2026-11-19' AND x_score = 0.5`,
    );
    expect(kept[0]!.n).toBe(promotedRows.filter((row) => row.x_score === 0.5).length);
    const newer = await queryFile(
      later.config.db,
      `SELECT count(*) FILTER (WHERE x_score IS NOT NULL)::INTEGER AS in_column,
        count(*) FILTER (WHERE list_contains(json_keys(_extra), 'x_score'))::INTEGER AS in_extra FROM conversations WHERE "day" = '2026-11-20'`,
    );
    expect(newer[0]).toMatchObject({ in_column: 0 });
    expect(newer[0]!.in_extra).toBeGreaterThan(0);
  });
});

describe('a promotion the warehouse cannot make', () => {
  it('names the sync.promote key: an unknown table, a field that is already a column', async () => {
    const dir = tempDir('promote-invalid');
    const warehouse = await openWarehouse(workingPathFor(`${dir.path}/bv.duckdb`));
    try {
      await expect(warehouse.promote({ conversation: { x: 'DOUBLE' } })).rejects.toThrow(
        /sync\.promote\.conversation: no table "conversation" with an _extra column.*conversations/,
      );
      await expect(warehouse.promote({ conversations: { model: 'VARCHAR' } })).rejects.toThrow(
        /sync\.promote\.conversations\.model: conversations already has a column "model"/,
      );
      expect(await warehouse.promote({ conversations: { x_score: 'DOUBLE' } })).toEqual({
        added: ['conversations.x_score'],
        moved: 0,
      });
      expect(await warehouse.promote({ conversations: { x_score: 'DOUBLE' } })).toEqual({ added: [], moved: 0 });
      await expect(warehouse.promote({ conversations: { x_score: 'BIGINT' } })).rejects.toThrow(
        /sync\.promote\.conversations\.x_score: the field was promoted as DOUBLE/,
      );
    } finally {
      await warehouse.close();
      dir.remove();
    }
  });

  it('refuses stored values that do not fit the type, before it changes anything', async () => {
    const dir = tempDir('promote-misfit');
    const path = workingPathFor(`${dir.path}/bv.duckdb`);
    try {
      await (await openWarehouse(path)).close();
      await runOnFile(
        path,
        `INSERT INTO topics (brand_id, id, name, _extra, _synced_at, _run_id)
         VALUES (1, 7, 'pricing', '{"x_rank": "first"}', current_timestamp, 'r1'),
                (1, 8, 'support', '{"x_rank": "2"}', current_timestamp, 'r1')`,
      );
      const warehouse = await openWarehouse(path);
      try {
        await expect(warehouse.promote({ topics: { x_rank: 'BIGINT' } })).rejects.toThrow(
          'sync.promote.topics.x_rank: 1 row(s) of topics hold a value that is not BIGINT ("first")',
        );
      } finally {
        await warehouse.close();
      }
      const columns = await queryFile(path, `SELECT column_name FROM duckdb_columns() WHERE column_name = 'x_rank'`);
      expect(columns).toEqual([]);
      expect(await queryFile(path, 'SELECT * FROM _promoted_fields')).toEqual([]);
      // A column an earlier bvsync added and recorded before the same values failed its move: the way out is named.
      await runOnFile(
        path,
        'ALTER TABLE topics ADD COLUMN x_rank BIGINT',
        `INSERT INTO _promoted_fields VALUES ('topics', 'x_rank', 'BIGINT', current_timestamp)`,
      );
      const again = await openWarehouse(path);
      try {
        await expect(again.promote({ topics: { x_rank: 'BIGINT' } })).rejects.toThrow(
          'its column is promoted already, so remove the entry from sync.promote (the column stays)',
        );
        expect(await again.promote({})).toEqual({ added: [], moved: 0 });
      } finally {
        await again.close();
      }
    } finally {
      dir.remove();
    }
  });

  it('stops a sync with the message naming the key', async () => {
    const config = writeCliConfig(later, { sync: { promote: { conversation: { x_score: 'DOUBLE' } } } });
    const sync = await spawnBvsync(
      ['sync', '--streams', 'conversations', '--today', '2026-11-20', '--config', config],
      cliEnv(later),
    ).done;
    expect(sync.code).toBe(2);
    expect(sync.stderr).toMatch(/^bvsync: sync\.promote\.conversation: no table "conversation" with an _extra column/m);
  });

  it('refuses a type the loader cannot fill at config load, naming the key', () => {
    expect(() => parseConfig({ sync: { promote: { conversations: { x_score: 'REAL NUMBER' } } } })).toThrow(
      /sync\.promote\.conversations\.x_score.*"REAL NUMBER" is not a type a promoted field can take/,
    );
    expect(parseConfig({ sync: { promote: { conversations: { x_score: 'double' } } } }).sync.promote).toEqual({
      conversations: { x_score: 'DOUBLE' },
    });
  });
});
