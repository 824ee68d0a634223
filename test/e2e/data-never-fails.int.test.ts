import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';

/**
 * An API bvsync has never met answers odd but schema-valid data: a record dated outside the day or window asked for,
 * a record repeating an id with other content, a page numbered otherwise than asked, a total_rows that moves from
 * page to page. None of it fails the run: the odd records are quarantined in _rejected_records with what was asked
 * and what came, their slices are marked incomplete, the rest loads and the run is published.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-19';

describe('odd records: outside the window, a repeated id with other content', () => {
  let fx: EngineFixture;
  let backfill: CliResult;
  const streams = ['conversations', 'visibility', 'citations'];

  beforeAll(async () => {
    fx = await engineFixture('data-never-fails', {
      sim: { brands: 1, days: 3, scale: 30, today: TODAY, oddities: ['row_outside_window', 'duplicate_key'] },
    });
    backfill = await runBvsync(
      [
        'backfill',
        '--from',
        FROM,
        '--to',
        TODAY,
        '--today',
        TODAY,
        '--streams',
        streams.join(','),
        '--config',
        writeCliConfig(fx),
      ],
      cliEnv(fx),
    );
  }, 180_000);
  afterAll(async () => fx?.cleanup());

  it('finishes and publishes; with every slice incomplete (each has an odd record) it exits 1 saying so', async () => {
    expect(backfill.stdout).toMatch(
      /: incomplete; .* 0 failed and \d+ incomplete slices \(bvsync status says why\); published /,
    );
    expect(backfill.stderr).toMatch(/bvsync: no slice of run \S+ is complete/);
    expect(backfill.code, backfill.stderr.slice(-3000)).toBe(1);
    const [run] = await queryFile(
      fx.config.db,
      'SELECT status, errors::INTEGER AS errors, rejects::INTEGER AS rejects FROM _sync_runs',
    );
    expect(run).toMatchObject({ status: 'incomplete', errors: 0 });
    expect(run!.rejects).toBeGreaterThan(0);
  });

  it('loads every good conversation, and quarantines the one dated outside its day with what was asked and what came', async () => {
    const [loaded] = await queryFile(
      fx.config.db,
      `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE id IN (SELECT (raw->>'id')::BIGINT FROM _rejected_records WHERE issues[1] LIKE '%outside%'))::INTEGER AS outside
       FROM conversations`,
    );
    expect(loaded).toEqual({ n: fx.sim.truth.totalRows(1, FROM, TODAY), outside: 0 });
    const outside = await queryFile(
      fx.config.db,
      `SELECT slice_key, issues[1] AS issue FROM _rejected_records WHERE stream = 'conversations' AND issues[1] LIKE '%outside%' ORDER BY slice_key`,
    );
    expect(outside.map((row) => row.slice_key)).toEqual([FROM, TODAY]);
    for (const row of outside) {
      expect(row.issue).toMatch(
        new RegExp(
          `^conversations row dated \\d{4}-\\d{2}-\\d{2} outside the slice's window ${row.slice_key}\\.\\.${row.slice_key}$`,
        ),
      );
    }
  });

  it('quarantines a repeated id with other content, keeping the first one read', async () => {
    const duplicates = await queryFile(
      fx.config.db,
      `SELECT stream, slice_key, issues[1] AS issue, (raw->>'id')::BIGINT AS id FROM _rejected_records WHERE issues[1] LIKE 'duplicate id%' AND stream = 'conversations' ORDER BY slice_key`,
    );
    expect(duplicates).toHaveLength(2);
    for (const row of duplicates) {
      expect(row.issue).toMatch(/with content other than the record of that id read earlier in this slice/);
      const [kept] = await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations WHERE id = $1', [
        row.id as number,
      ]);
      expect(kept!.n).toBe(1);
    }
    const visibility = await queryFile(
      fx.config.db,
      `SELECT count(*)::INTEGER AS n FROM _rejected_records WHERE stream = 'visibility' AND issues[1] LIKE 'duplicate id%'`,
    );
    expect(visibility[0]!.n).toBe(2);
  });

  it("quarantines citation rows dated outside the window and keeps the window's series", async () => {
    const outside = await queryFile(
      fx.config.db,
      `SELECT DISTINCT issues[1] AS issue FROM _rejected_records WHERE stream = 'citations' AND issues[1] LIKE '%outside%'`,
    );
    expect(outside.length).toBeGreaterThan(0);
    for (const row of outside)
      expect(row.issue).toMatch(
        new RegExp(`^citation_daily row dated \\S+ outside the slice's window ${FROM}\\.\\.${TODAY}$`),
      );
    const [days] = await queryFile(
      fx.config.db,
      `SELECT min("day")::VARCHAR AS first, max("day")::VARCHAR AS last, count(*)::INTEGER AS n FROM citation_daily`,
    );
    expect(days).toMatchObject({ first: FROM, last: TODAY });
    expect(days!.n).toBeGreaterThan(0);
  });

  it('marks the slices incomplete with the reason, and no slice failed', async () => {
    const states = await queryFile(
      fx.config.db,
      `SELECT stream, status, count(*)::INTEGER AS slices, bool_and(last_error IS NOT NULL) AS said_why FROM _sync_state GROUP BY ALL ORDER BY ALL`,
    );
    expect(states.filter((row) => row.status === 'failed')).toEqual([]);
    for (const stream of streams) {
      const incomplete = states.find((row) => row.stream === stream && row.status === 'incomplete');
      expect(incomplete, stream).toBeDefined();
      expect(incomplete!.said_why).toBe(true);
    }
    const [conversation] = await queryFile(
      fx.config.db,
      `SELECT last_error, error_code FROM _sync_state WHERE stream = 'conversations' AND slice_key = $1`,
      [TODAY],
    );
    expect(conversation!.error_code).toBe('out_of_scope');
    expect(conversation!.last_error).toMatch(
      new RegExp(`outside the slice's window ${TODAY}\\.\\.${TODAY}.*duplicate id`),
    );
  });

  it('reads a slice with records outside its scope once: the same answer would come again', () => {
    const conversationCalls = fx.sim.requestLog().filter((entry) => entry.path.endsWith('/conversations'));
    // scale 30 is one page a day; two days.
    expect(conversationCalls).toHaveLength(2);
  });
});

describe('odd paging: a page numbered otherwise than asked, a total_rows that moves', () => {
  let fx: EngineFixture;
  afterAll(async () => fx?.cleanup());

  it('keeps the pages answered as asked, quarantines the refused one, and never pages on', async () => {
    fx = await engineFixture('data-never-fails-paging', {
      sim: { brands: 1, days: 2, scale: 60, today: TODAY, oddities: ['wrong_page'] },
    });
    fx.config.api.pageSize = 10;
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      from: TODAY,
      to: TODAY,
      today: TODAY,
      streams: ['conversations'],
    });
    expect(progress.meta.status).not.toBe('failed');
    const [state] = await queryFile(
      fx.config.db,
      `SELECT status, error_code, last_error, "rows"::INTEGER AS rows FROM _sync_state`,
    );
    expect(state).toMatchObject({ status: 'incomplete', error_code: 'paging_mismatch', rows: 10 });
    expect(state!.last_error).toMatch(/asked for page 2, the API answered page 3/);
    const [loaded] = await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations');
    expect(loaded!.n).toBe(10);
    const refused = await queryFile(fx.config.db, `SELECT issues[1] AS issue, source FROM _rejected_records`);
    expect(refused).toHaveLength(10);
    expect(refused[0]!.issue).toMatch(/asked for page 2, the API answered page 3; check api\.params\.page/);
    // Page 1, then page 2 refused: read once, since the same answer would come again.
    expect(fx.sim.requestLog().filter((entry) => entry.path.endsWith('/conversations'))).toHaveLength(2);
    await fx.cleanup();
    fx = undefined as unknown as EngineFixture;
  }, 120_000);

  it('reads an API whose pages count from 0 whole with api.firstPage 0', async () => {
    fx = await engineFixture('data-never-fails-first-page', { sim: { brands: 1, days: 2, scale: 60, today: TODAY } });
    fx.sim.setKnobs({ firstPage: 0 });
    fx.config.api.pageSize = 10;
    fx.config.api.firstPage = 0;
    const answers = fx.sim.truth.totalRows(1, TODAY, TODAY);
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      from: TODAY,
      to: TODAY,
      today: TODAY,
      streams: ['conversations'],
    });
    expect(progress.meta.status).toBe('complete');
    expect(await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations')).toEqual([{ n: answers }]);
    expect(fx.sim.requestLog().filter((entry) => entry.path.endsWith('/conversations'))).toHaveLength(
      Math.ceil(answers / 10) + (answers % 10 === 0 ? 1 : 0),
    );
    await fx.cleanup();
    fx = undefined as unknown as EngineFixture;
  }, 120_000);

  // Before, both exited 0: a script took 20 conversations of the two days' answers for a finished backfill, or, with the
  // competitors list complete beside them, empty conversation days.
  it.each([
    {
      streams: 'conversations',
      says: /bvsync: no slice of run \S+ is complete \(2 incomplete\): bvsync could not confirm it read any of them whole/,
    },
    {
      streams: 'conversations,competitors',
      says: /bvsync: no slice of conversations of brand 1 is complete \(2 incomplete\): bvsync could not confirm it read any of them whole/,
    },
  ])(
    'exits 1 from a backfill of $streams with no conversations slice complete, saying so',
    async ({ streams, says }) => {
      fx = await engineFixture('data-never-fails-none-complete', {
        sim: { brands: 1, days: 3, scale: 60, today: TODAY, oddities: ['wrong_page'] },
      });
      const config = writeCliConfig(fx, {
        api: { requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50, pageSize: 10 },
      });
      const result = await runBvsync(
        ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', streams, '--config', config],
        cliEnv(fx),
      );
      expect(result.stdout).toMatch(/: incomplete; .* 0 failed and 2 incomplete slices/);
      expect(result.stderr).toMatch(says);
      expect(result.code).toBe(1);
      await fx.cleanup();
      fx = undefined as unknown as EngineFixture;
    },
    120_000,
  );

  it('reads a slice whose total_rows moves a bounded number of times, then marks it incomplete with the move', async () => {
    fx = await engineFixture('data-never-fails-total', {
      sim: { brands: 1, days: 2, scale: 60, today: TODAY, oddities: ['moving_total'] },
    });
    fx.config.api.pageSize = 10;
    const answers = fx.sim.truth.totalRows(1, TODAY, TODAY);
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      from: TODAY,
      to: TODAY,
      today: TODAY,
      streams: ['conversations'],
    });
    expect(progress.meta.status).not.toBe('failed');
    const [state] = await queryFile(
      fx.config.db,
      `SELECT status, last_error, "rows"::INTEGER AS rows FROM _sync_state`,
    );
    expect(state).toMatchObject({ status: 'incomplete', rows: answers });
    expect(state!.last_error).toMatch(/total_rows \d+ \(it moved from \d+ while the slice was read\)/);
    // Three reads at most (the first and two more), each of the pages the answers fill and at most one more.
    const pages = Math.ceil(answers / 10);
    expect(fx.sim.requestLog().filter((entry) => entry.path.endsWith('/conversations')).length).toBeLessThanOrEqual(
      3 * (pages + 1),
    );
    const [loaded] = await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations');
    expect(loaded!.n).toBe(answers);
    await fx.cleanup();
    fx = undefined as unknown as EngineFixture;
  }, 120_000);

  it('reads every page of a slice whose total_rows counts only its own page, marks it incomplete saying so, and reads it once', async () => {
    fx = await engineFixture('data-never-fails-page-total', {
      sim: { brands: 1, days: 2, scale: 60, today: TODAY, oddities: ['page_total'] },
    });
    fx.config.api.pageSize = 10;
    const answers = fx.sim.truth.totalRows(1, TODAY, TODAY);
    expect(answers).toBeGreaterThan(10);
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      from: TODAY,
      to: TODAY,
      today: TODAY,
      streams: ['conversations'],
    });
    expect(progress.meta.status).toBe('incomplete');
    const [state] = await queryFile(
      fx.config.db,
      `SELECT status, last_error, "rows"::INTEGER AS rows FROM _sync_state`,
    );
    // Before, the first page's total_rows 10 was believed: 10 of the day's answers loaded, the slice complete.
    expect(state).toMatchObject({ status: 'incomplete', rows: answers });
    expect(state!.last_error).toMatch(
      /each page's total_rows counted only that page's records, so whether the slice is whole cannot be checked/,
    );
    const pages = Math.ceil(answers / 10) + (answers % 10 === 0 ? 1 : 0);
    expect(fx.sim.requestLog().filter((entry) => entry.path.endsWith('/conversations'))).toHaveLength(pages);
    const [loaded] = await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations');
    expect(loaded!.n).toBe(answers);
  }, 120_000);
});
