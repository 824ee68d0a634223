import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { Notifier } from '../../src/notify/index.js';
import { PrometheusMetrics } from '../../src/ops/prometheus-metrics.js';
import { watchHost } from '../../src/ops/host-metrics.js';
import { checkSchemaDrift, type DoctorCheck } from '../../src/cli/doctor/checks.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  scalarOfFile,
  spawnBvsync,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { backfillWithRunningWorkers } from '../ops/host-run.js';
import { parseSamples, total, type Sample } from '../ops/prometheus-text.js';
import type { Config } from '../../src/configuration.js';

/**
 * A clean backfill, then the same backfill with the simulator's drift knobs on (unknown fields, an unlisted model and
 * ownership): the second run's new fields, values and engine are in v_schema_drift, in `status` and `doctor`, in the
 * gauge, and in exactly one `schema_drift` webhook delivery; a third run that sees them again sends none.
 */

const STREAMS = ['conversations', 'citations'];
const WINDOW = { from: '2026-11-18', to: '2026-11-20' };

let fx: EngineFixture;
let config: Config;
let receiver: WebhookReceiver;
let notifier: Notifier;
let host: WorkerHost;
let metrics: PrometheusMetrics;
const runs: RunProgress[] = [];
let samples: Sample[];

beforeAll(async () => {
  fx = await engineFixture('schema-drift', { sim: { brands: 1, days: 4 } });
  receiver = await startWebhookReceiver();
  config = {
    ...fx.config,
    notify: {
      ...fx.config.notify,
      webhooks: [{ url: `${receiver.url}/drift`, events: ['schema_drift'], format: 'json' }],
    },
  };
  notifier = new Notifier({ config, log: fx.log, retryBaseMs: 10 });
  metrics = new PrometheusMetrics({ processMetrics: false });
  host = new WorkerHost({ config, redisUrl: fx.redisUrl, log: fx.log, leaseTtlMs: 2_000, metrics, notifier });
  watchHost(host, metrics, undefined);
  await host.start();
  runs.push(await backfillWithRunningWorkers(fx, { streams: STREAMS, ...WINDOW }));
  fx.sim.setKnobs({ extraFieldShare: 0.3, unknownEnumShare: 0.2 });
  runs.push(await backfillWithRunningWorkers(fx, { streams: STREAMS, ...WINDOW }));
  await notifier.settle();
  samples = parseSamples(await metrics.registry.metrics());
  runs.push(await backfillWithRunningWorkers(fx, { streams: STREAMS, ...WINDOW }));
  await notifier.settle();
}, 180_000);
afterAll(async () => {
  await host?.stop();
  await receiver?.close();
  await fx?.cleanup();
});

describe('the schema drift report', () => {
  it('the runs complete', () => {
    expect(runs.map((run) => run.meta.status)).toEqual(['complete', 'complete', 'complete']);
  });

  it('v_schema_drift lists each new field with its rows, an example and the type it looks like', async () => {
    const fields = await queryFile(
      config.db,
      `SELECT name, row_count, example, looks_like, is_new FROM v_schema_drift WHERE table_name = 'conversations' AND kind = 'field' ORDER BY name`,
    );
    const holding = await scalarOfFile(
      config.db,
      `SELECT count(*)::INTEGER FROM conversations WHERE list_contains(json_keys(_extra), 'x_score')`,
    );
    expect(holding).toBeGreaterThan(0);
    expect(fields).toEqual([
      { name: 'x_score', row_count: holding, example: '0.5', looks_like: 'DOUBLE', is_new: true },
      {
        name: 'x_unlisted_field',
        row_count: holding,
        example: '{"note":"a field the spec does not list","since":"2099-01-01"}',
        looks_like: 'JSON',
        is_new: true,
      },
    ]);
  });

  it('lists an unlisted ownership value and a model first seen after the first run, but not the engines that run learned', async () => {
    const values = await queryFile(
      config.db,
      `SELECT table_name, kind, name, "value", is_new FROM v_schema_drift WHERE kind <> 'field' AND is_new ORDER BY table_name`,
    );
    expect(values).toEqual([
      {
        table_name: 'citation_ownership_summary',
        kind: 'enum',
        name: 'ownership',
        value: 'unlisted_ownership',
        is_new: true,
      },
      { table_name: 'conversations', kind: 'engine', name: 'model', value: 'engine_preview_unlisted', is_new: true },
    ]);
    const learned = await scalarOfFile(
      config.db,
      `SELECT count(*)::INTEGER FROM v_schema_drift WHERE table_name = 'conversations' AND kind = 'engine' AND NOT is_new`,
    );
    const models = await scalarOfFile(
      config.db,
      `SELECT count(DISTINCT model)::INTEGER FROM conversations WHERE model <> 'engine_preview_unlisted'`,
    );
    expect(learned).toBe(models);
  });

  it('sends one schema_drift notice, with the run that first saw them, and none when a later run sees them again', () => {
    const notices = receiver.received.map((request) => request.json());
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ event: 'schema_drift', run: { id: runs[1]!.meta.runId } });
    const told = notices[0].drift
      .map((entry: { table: string; name: string; value: string }) => `${entry.table}.${entry.name}=${entry.value}`)
      .sort();
    expect(told).toEqual([
      'citation_daily.x_score=',
      'citation_daily.x_unlisted_field=',
      'citation_ownership_summary.ownership=unlisted_ownership',
      'conversations.model=engine_preview_unlisted',
      'conversations.x_score=',
      'conversations.x_unlisted_field=',
    ]);
    // The fields docs/operations.md lists for the event.
    for (const entry of notices[0].drift)
      expect(Object.keys(entry).sort()).toEqual(['example', 'kind', 'looksLike', 'name', 'rows', 'table', 'value']);
  });

  it('sets the gauge per table and kind', () => {
    expect(total(samples, 'bvsync_schema_drift', { table: 'conversations', kind: 'field' })).toBe(2);
    expect(total(samples, 'bvsync_schema_drift', { table: 'conversations', kind: 'engine' })).toBe(1);
    expect(total(samples, 'bvsync_schema_drift', { table: 'citation_ownership_summary', kind: 'enum' })).toBe(1);
  });

  it('doctor warns with a line per table', async () => {
    const checks: DoctorCheck[] = [];
    await checkSchemaDrift(config, (check) => checks.push(check));
    const lines = checks.map((check) => check.line);
    expect(checks.every((check) => check.ok && check.warning)).toBe(true);
    expect(lines.find((line) => line.startsWith('schema drift: conversations: '))).toMatch(
      /2 field\(s\) the spec does not show, in _extra: x_score \(DOUBLE, \d+ rows\), x_unlisted_field \(JSON, \d+ rows\); engine\(s\) not seen before: engine_preview_unlisted/,
    );
    expect(lines).toContain(
      "schema drift: citation_ownership_summary: value(s) outside the spec's lists: ownership=unlisted_ownership",
    );
  });

  it('status shows the same lines under "Schema drift"', async () => {
    const status = await spawnBvsync(['status', '--config', writeCliConfig(fx)], cliEnv(fx)).done;
    expect(status.code, status.stderr.slice(-2000)).toBe(0);
    const section = status.stdout.slice(status.stdout.indexOf('Schema drift'));
    expect(section).toMatch(
      /^Schema drift\ncitation_daily: 2 field\(s\).*\ncitation_ownership_summary: .*unlisted_ownership\nconversations: 2 field\(s\)/,
    );
    const json = await spawnBvsync(['status', '--json', '--config', writeCliConfig(fx)], cliEnv(fx)).done;
    const report = JSON.parse(json.stdout);
    expect(
      report.schemaDrift
        .find((table: { table: string }) => table.table === 'conversations')
        .fields.map((field: { name: string }) => field.name),
    ).toEqual(['x_score', 'x_unlisted_field']);
  });
});
