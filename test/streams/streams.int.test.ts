import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { startSimulator, type Knobs, type RunningSimulator } from '../../src/simulator/index.js';
import { DIMENSION_NAMES, NO_DIMENSIONS, readDimensions, warehouseDimensions } from '../../src/streams/dimensions.js';
import { STREAMS } from '../../src/streams/registry.js';
import { appliedQuery } from '../../src/warehouse/provenance.js';
import { runSlice, type SliceChunk, type SliceReadResult } from '../../src/streams/run-slice.js';
import type { Dimensions, RowsByTable, SlicePlan, StreamDefinition } from '../../src/streams/stream.js';
import { phaseOf } from '../../src/engine/plan/plan.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';
import { parseConfig, type SyncConfig } from '../../src/configuration.js';

/**
 * Every stream against the simulator: the slices of one brand for two days, read by the real runner through a real
 * client, loaded into a real DuckDB file by the real loader (so a column the DDL does not have fails here), then
 * cross-checked against each other and against the simulator's own answers.
 */

const TODAY = '2026-11-20';
const DAYS = ['2026-11-19', TODAY];
const RUN_ID = 'streams-int';

interface SliceOutcome {
  stream: string;
  slice: SlicePlan;
  result: SliceReadResult;
}

/** A simulator, a client and a fresh warehouse, with every stream of one brand loaded for DAYS. */
interface Synced {
  sim: RunningSimulator;
  brandId: number;
  warehouse: Warehouse;
  results: SliceOutcome[];
  close(): Promise<void>;
}

async function syncEveryStream(name: string, knobs: Partial<Knobs> = {}): Promise<Synced> {
  const sim = await startSimulator({ seed: 11, brands: 1, days: 5, scale: 40, today: TODAY, ...knobs });
  const brandId = sim.brands[0]!;
  const world = sim.truth.world(brandId);
  // The config lists statement ids per brand; a plain list is still read as "every brand".
  const sync: SyncConfig = {
    ...parseConfig({}).sync,
    swotStatementIds: { [String(brandId)]: [world.swotStatements[0]!.id] } as unknown as SyncConfig['swotStatementIds'],
    phrases: world.phrases.slice(0, 1),
  };
  const client = createApiClient(
    { ...parseConfig({}).api, url: sim.url, apiKey: sim.apiKey, requestsPerSecond: 1_000 },
    { retryRateLimited: true },
  );
  const dir = tempDir(name);
  const warehouse = await openWarehouse(`${dir.path}/work.duckdb`);
  const results: SliceOutcome[] = [];

  const loadStream = async (stream: StreamDefinition, dimensions: Dimensions) => {
    for (const slice of stream.slices({ brandId, days: DAYS, sync, dimensions })) {
      const chunks: SliceChunk[] = [];
      const sink = {
        write: async (chunk: SliceChunk) => void chunks.push(chunk),
        reset: async () => void (chunks.length = 0),
      };
      const result = await runSlice(stream, { client, brandId, slice, sync }, sink);
      results.push({ stream: stream.name, slice, result });
      const tables: RowsByTable = {};
      for (const chunk of chunks)
        for (const [table, rows] of Object.entries(chunk.tables)) (tables[table] ??= []).push(...rows);
      const targets = stream.targets({ brandId, slice });
      const stray = Object.keys(tables).filter((table) => !targets.some((target) => target.table === table));
      expect(stray, `${stream.name} ${slice.key} made rows without a target`).toEqual([]);
      await warehouse.loadSlice({
        runId: RUN_ID,
        brandId,
        stream: stream.name,
        sliceKey: slice.key,
        day: slice.day,
        writes: targets.map((target) => ({ ...target, rows: tables[target.table] ?? [] })),
        rejects: chunks.flatMap((chunk) => chunk.rejects),
        appliedQuery: result.query && appliedQuery(result.query, slice),
        state: {
          status: result.status,
          rows: result.records,
          totalRows: result.totalRows,
          attempts: result.reads,
          requests: 0,
          lastError: result.problem,
        },
      });
    }
  };

  try {
    const streams = [...STREAMS.values()];
    for (const stream of streams.filter((s) => phaseOf(s, sync) === 1)) await loadStream(stream, NO_DIMENSIONS);
    // Phase 2 fans out over what phase 1 loaded, as the load processor does.
    const dimensions = await readDimensions(
      streams,
      new Set(DIMENSION_NAMES),
      warehouseDimensions(warehouse),
      brandId,
      [],
    );
    for (const stream of streams.filter((s) => phaseOf(s, sync) === 2)) await loadStream(stream, dimensions);
  } catch (error) {
    await Promise.allSettled([warehouse.close(), client.close(), sim.close()]);
    dir.remove();
    throw error;
  }
  return {
    sim,
    brandId,
    warehouse,
    results,
    close: async () => {
      await Promise.allSettled([warehouse.close(), client.close(), sim.close()]);
      dir.remove();
    },
  };
}

async function scalarOf(warehouse: Warehouse, sql: string, params: Array<string | number> = []): Promise<number> {
  const rows = await warehouse.query(sql, params);
  return Number(Object.values(rows[0] ?? {})[0] ?? 0);
}

describe('every stream against the simulator', () => {
  let synced: Synced;
  let sim: RunningSimulator;
  let brandId: number;
  let warehouse: Warehouse;
  let results: SliceOutcome[];
  const scalar = (sql: string, params: Array<string | number> = []) => scalarOf(warehouse, sql, params);

  beforeAll(async () => {
    synced = await syncEveryStream('streams-int');
    ({ sim, brandId, warehouse, results } = synced);
  }, 120_000);
  afterAll(async () => synced?.close());

  it('reads every slice complete, with no rejects', () => {
    expect(results.length).toBeGreaterThan(50);
    const incomplete = results
      .filter((r) => r.result.status !== 'complete')
      .map((r) => `${r.stream} ${r.slice.key}: ${r.result.problem}`);
    expect(incomplete).toEqual([]);
    expect(results.reduce((sum, r) => sum + r.result.rejects, 0)).toBe(0);
  });

  it('fills every target table of every stream', async () => {
    const empty: string[] = [];
    for (const stream of STREAMS.values()) {
      const slices = results.filter((r) => r.stream === stream.name);
      expect(slices.length, `${stream.name} planned no slice`).toBeGreaterThan(0);
      for (const target of stream.targets({ brandId, slice: slices[0]!.slice })) {
        if ((await scalar(`SELECT count(*) FROM ${target.table} WHERE brand_id = $1`, [brandId])) === 0)
          empty.push(`${stream.name}: ${target.table}`);
      }
    }
    expect(empty).toEqual([]);
  });

  /** The answers of a day from the brand's engines: the default engine filter of visibility and product ranking (spec). */
  const brandEngineAnswers = (day: string) => {
    const engines = new Set<string>(sim.truth.world(brandId).brand.engines);
    return sim.truth.answers(brandId, day).filter((answer) => engines.has(answer.engine));
  };

  it('visibility conversations add up to the conversations of the day, and the numerators to the mentions', async () => {
    for (const day of DAYS) {
      expect(await scalar('SELECT count(*) FROM conversations WHERE "day" = $1', [day])).toBe(
        sim.truth.answers(brandId, day).length,
      );
      const answers = brandEngineAnswers(day);
      expect(answers.length).toBeGreaterThan(0);
      expect(await scalar('SELECT sum(conversations) FROM visibility_topic_daily WHERE "day" = $1', [day])).toBe(
        answers.length,
      );
      expect(
        await scalar('SELECT sum(mentioned_conversations) FROM visibility_topic_daily WHERE "day" = $1', [day]),
      ).toBe(answers.filter((answer) => answer.mentioned).length);
      expect(await scalar('SELECT sum(conversations) FROM visibility_scenario_daily WHERE "day" = $1', [day])).toBe(
        answers.length,
      );
      // The own brand's entry carries the topic's own numbers.
      expect(
        await scalar(
          `SELECT count(*) FROM visibility_topic_daily t JOIN visibility_topic_brand_daily b USING (brand_id, "day", topic_id)
           WHERE b.is_own_brand AND t."day" = $1 AND b.mentioned_conversations <> t.mentioned_conversations`,
          [day],
        ),
      ).toBe(0);
    }
  });

  it('citation series split by ownership, sentiment and content type each add up to the series of all', async () => {
    for (const day of DAYS) {
      const all = await scalar(`SELECT occurrences FROM citation_daily WHERE "day" = $1 AND dimension = 'all'`, [day]);
      expect(all).toBe(sim.truth.answers(brandId, day).reduce((sum, answer) => sum + answer.citations.length, 0));
      for (const dimension of ['ownership', 'sentiment', 'content_type']) {
        expect(
          await scalar('SELECT sum(occurrences) FROM citation_daily WHERE "day" = $1 AND dimension = $2', [
            day,
            dimension,
          ]),
        ).toBe(all);
      }
    }
    const summary = await scalar(
      'SELECT sum(occurrences) FROM citation_ownership_summary WHERE window_start = $1 AND window_end = $2',
      [DAYS[0]!, TODAY],
    );
    const days = await scalar(`SELECT sum(occurrences) FROM citation_daily WHERE dimension = 'all'`);
    expect(summary).toBe(days);
    // The API's own total of the window (info.summary.occurrences), kept to reconcile the days with.
    expect(
      await scalar('SELECT occurrences FROM citation_window_totals WHERE window_start = $1 AND window_end = $2', [
        DAYS[0]!,
        TODAY,
      ]),
    ).toBe(days);
    expect(
      await scalar('SELECT total_rows FROM citation_window_totals WHERE window_start = $1 AND window_end = $2', [
        DAYS[0]!,
        TODAY,
      ]),
    ).toBe(DAYS.length);
  });

  it("a domain's daily detail matches its citation series, and a day without citations has no detail row", async () => {
    const mismatched = await warehouse.query(
      `SELECT c."day", c."value", c.occurrences, d.occurrences AS detail
       FROM citation_daily c LEFT JOIN domain_daily d ON d.brand_id = c.brand_id AND d.domain = c."value" AND d."day" = c."day"
       WHERE c.dimension = 'domain' AND coalesce(d.occurrences, 0) <> c.occurrences`,
    );
    expect(mismatched).toEqual([]);
    expect(await scalar(`SELECT count(*) FROM citation_daily WHERE dimension = 'domain'`)).toBeGreaterThan(0);
  });

  it("tracked URL days count the day's conversations; product ranking counts its shopping answers", async () => {
    for (const day of DAYS) {
      const answers = sim.truth.answers(brandId, day);
      expect(await scalar('SELECT max(conversations) FROM tracked_url_daily WHERE "day" = $1', [day])).toBe(
        answers.length,
      );
      expect(await scalar('SELECT min(conversations) FROM tracked_url_daily WHERE "day" = $1', [day])).toBe(
        answers.length,
      );
      const shopping = brandEngineAnswers(day).filter((answer) => answer.hasShopping).length;
      expect(
        await scalar('SELECT min(shopping_conversations) FROM product_ranking_shopping_daily WHERE "day" = $1', [day]),
      ).toBe(shopping);
      expect(
        await scalar('SELECT max(shopping_conversations) FROM product_ranking_shopping_daily WHERE "day" = $1', [day]),
      ).toBe(shopping);
    }
    expect(await scalar('SELECT count(DISTINCT (metric, subject)) FROM product_ranking_shopping_daily')).toBe(4);
  });
});

describe('every stream against a drifting API', () => {
  let synced: Synced;
  beforeAll(async () => {
    synced = await syncEveryStream('streams-drift', {
      extraFieldShare: 0.3,
      unknownEnumShare: 0.3,
      invalidShare: 0.05,
    });
  }, 120_000);
  afterAll(async () => synced?.close());

  it('sets invalid records aside, keeps unknown fields and enum values, and still completes every slice', async () => {
    const { results, warehouse } = synced;
    const incomplete = results
      .filter((r) => r.result.status !== 'complete')
      .map((r) => `${r.stream} ${r.slice.key}: ${r.result.problem}`);
    expect(incomplete).toEqual([]);
    const rejects = results.reduce((sum, r) => sum + r.result.rejects, 0);
    expect(rejects).toBeGreaterThan(0);
    expect(await scalarOf(warehouse, 'SELECT count(*) FROM _rejected_records')).toBe(rejects);
    expect(
      await scalarOf(warehouse, `SELECT count(*) FROM conversations WHERE _extra->>'x_score' IS NOT NULL`),
    ).toBeGreaterThan(0);
    expect(
      await scalarOf(warehouse, `SELECT count(*) FROM conversations WHERE model = 'engine_preview_unlisted'`),
    ).toBeGreaterThan(0);
  });
});
