import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';
import { freePort } from '../support/free-port.js';
import { startProgram, untilAnswers, type Program } from '../support/program.js';
import { toolsSkipReason } from '../support/prometheus-tools.js';
import { until } from '../support/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The alert path end to end, with the real programs: a real Prometheus scrapes a `bvsync worker --metrics-port` and
 * evaluates deploy/prometheus/alerts.yml every second; a real Alertmanager routes BvsyncRunFailed to a local webhook
 * receiver when the worker finalizes a run that failed. The worker's own webhook gets its `run_failed` notice too.
 */

const TODAY = '2026-11-20';
const RULES = join(import.meta.dirname, '..', '..', 'deploy', 'prometheus', 'alerts.yml');
const skipReason = toolsSkipReason('prometheus', 'prometheus-alertmanager');
if (skipReason) console.warn(skipReason);

let fx: EngineFixture;
let receiver: WebhookReceiver;
let alertmanager: Program;
let prometheus: Program;
let worker: CliProcess;
let prometheusUrl: string;

async function query(expression: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
  return (
    (await response.json()) as { data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } }
  ).data.result;
}

describe.skipIf(skipReason !== undefined)('a failed run, alerted through Prometheus and Alertmanager', () => {
  beforeAll(async () => {
    fx = await engineFixture('alerts', { sim: { brands: 1, days: 4 } });
    receiver = await startWebhookReceiver();
    const [alertmanagerPort, prometheusPort, metricsPort] = [await freePort(), await freePort(), await freePort()];

    const alertmanagerConfig = join(fx.dir, 'alertmanager.yml');
    writeFileSync(
      alertmanagerConfig,
      [
        'route:',
        '  receiver: local',
        '  group_by: [alertname]',
        '  group_wait: 1s',
        '  group_interval: 1s',
        'receivers:',
        '  - name: local',
        '    webhook_configs:',
        `      - url: ${receiver.url}/alerts`,
      ].join('\n'),
    );
    alertmanager = startProgram('prometheus-alertmanager', [
      `--config.file=${alertmanagerConfig}`,
      `--storage.path=${join(fx.dir, 'alertmanager-data')}`,
      `--web.listen-address=127.0.0.1:${alertmanagerPort}`,
      '--cluster.listen-address=',
    ]);
    await untilAnswers(`http://127.0.0.1:${alertmanagerPort}/-/ready`, 'Alertmanager', alertmanager);

    // The worker also has a webhook of its own: the writer that finalizes a run is the one that tells of it.
    const workerConfig = writeCliConfig(fx, {
      sync: { startDate: '2026-11-19' },
      notify: { webhooks: [{ url: `${receiver.url}/notify`, events: ['run_failed'] }] },
    });
    worker = spawnBvsync(['worker', '--metrics-port', String(metricsPort), '--config', workerConfig], cliEnv(fx));
    await worker.waitFor(/holding the DuckDB writer lease/, 60_000);

    const prometheusConfig = join(fx.dir, 'prometheus.yml');
    writeFileSync(
      prometheusConfig,
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${RULES}`,
        'alerting:',
        '  alertmanagers:',
        '    - static_configs:',
        `        - targets: ['127.0.0.1:${alertmanagerPort}']`,
        'scrape_configs:',
        '  - job_name: bvsync',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${metricsPort}']`,
      ].join('\n'),
    );
    prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
    prometheus = startProgram('prometheus', [
      `--config.file=${prometheusConfig}`,
      `--storage.tsdb.path=${join(fx.dir, 'prometheus-data')}`,
      `--web.listen-address=127.0.0.1:${prometheusPort}`,
    ]);
    await untilAnswers(`${prometheusUrl}/-/ready`, 'Prometheus', prometheus);
    // The failed-runs counter is scraped at 0 first: the rule's increase() needs a sample from before the failure.
    await until(
      "Prometheus to have scraped the worker's runs counter",
      async () => (await query('bvsync_runs_finished_total{status="failed"}')).length > 0,
      60_000,
      200,
    );
  }, 180_000);

  afterAll(async () => {
    worker?.kill('SIGTERM');
    await worker?.done;
    await prometheus?.stop();
    await alertmanager?.stop();
    await receiver?.close();
    await fx?.cleanup();
  });

  it('delivers BvsyncRunFailed to the Alertmanager receiver after the worker finalizes a failed run', async () => {
    // Every conversations read is refused 403: each slice fails, so the run fails; the worker finalizes it.
    fx.sim.setKnobs({ refusedPaths: ['conversations'] });
    const enqueued = await runBvsync(
      [
        'sync',
        '--enqueue-only',
        '--streams',
        'conversations',
        '--today',
        TODAY,
        '--config',
        writeCliConfig(fx, { sync: { startDate: '2026-11-19' } }),
      ],
      cliEnv(fx),
    );
    expect(enqueued.code, enqueued.stderr.slice(-2000)).toBe(0);
    await worker.waitFor(/"status":"failed".*run finished|run finished.*"status":"failed"/, 60_000);

    const notices = () =>
      receiver.received.filter((request) => request.path === '/notify').map((request) => request.json());
    await until('the worker to send run_failed', () => notices().length > 0, 60_000, 100);
    expect(notices()).toHaveLength(1);
    expect(notices()[0]).toMatchObject({
      event: 'run_failed',
      run: { kind: 'sync', status: 'failed' },
      counts: { failed: 2 },
    });
    expect(notices()[0].errors[0]).toMatchObject({ stream: 'conversations', code: 'forbidden' });

    const firing = () =>
      receiver.received
        .filter((request) => request.path === '/alerts')
        .map(
          (request) =>
            request.json() as { status: string; alerts: Array<{ status: string; labels: Record<string, string> }> },
        )
        .flatMap((message) => message.alerts)
        .filter((alert) => alert.labels.alertname === 'BvsyncRunFailed' && alert.status === 'firing');
    await until('Alertmanager to deliver BvsyncRunFailed', () => firing().length > 0, 120_000, 100);
    expect(firing()[0]!.labels).toMatchObject({
      alertname: 'BvsyncRunFailed',
      severity: 'page',
      kind: 'sync',
      status: 'failed',
      job: 'bvsync',
    });
  }, 180_000);
});
