import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, engineFixture, runBvsync, writeCliConfig, type EngineFixture } from '../support/engine.js';
import { freePort } from '../support/free-port.js';
import { startProgram, untilAnswers, type Program } from '../support/program.js';
import { toolsSkipReason } from '../support/prometheus-tools.js';

/**
 * `metrics.pushgateway`: a one-off `bvsync sync` pushes its run's metrics at its end to a real Pushgateway (Debian's
 * prometheus-pushgateway), in a group of its prefix and run kind, and its /metrics then shows the run's series.
 */

const TODAY = '2026-11-20';
const skipReason = toolsSkipReason('prometheus-pushgateway');
if (skipReason) console.warn(skipReason);

let fx: EngineFixture;
let gateway: Program;
let gatewayUrl: string;

describe.skipIf(skipReason !== undefined)('a sync with metrics.pushgateway', () => {
  beforeAll(async () => {
    fx = await engineFixture('pushgateway', { sim: { brands: 1, days: 4 } });
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    gateway = startProgram('prometheus-pushgateway', [
      `--web.listen-address=127.0.0.1:${port}`,
      `--persistence.file=${join(fx.dir, 'pushgateway.data')}`,
    ]);
    await untilAnswers(`${gatewayUrl}/-/ready`, 'the Pushgateway', gateway);
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await fx?.cleanup();
  });

  it("pushes the run's status, failed slices, requests and rows to the gateway", async () => {
    const config = writeCliConfig(fx, { sync: { startDate: '2026-11-19' }, metrics: { pushgateway: gatewayUrl } });
    const sync = await runBvsync(['sync', '--streams', 'visibility', '--today', TODAY, '--config', config], cliEnv(fx));
    expect(sync.code, sync.stderr.slice(-2000)).toBe(0);
    const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
    const group = `command="sync",instance="",job="bvsync",prefix="${fx.config.redisPrefix}"`;
    // The pushed series, of this test's group, of the sync kind.
    const series = (name: string) =>
      text
        .split('\n')
        .filter(
          (line) =>
            line.startsWith(`${name}{`) &&
            line.includes('command="sync"') &&
            line.includes('kind="sync"') &&
            line.includes(`prefix="${fx.config.redisPrefix}"`),
        );
    expect(series('bvsync_run_status').find((line) => line.includes('status="complete"'))).toMatch(/ 1$/);
    expect(series('bvsync_run_status').find((line) => line.includes('status="failed"'))).toMatch(/ 0$/);
    expect(series('bvsync_run_failed_slices')[0]).toMatch(/ 0$/);
    expect(series('bvsync_run_finished_timestamp_seconds')).toHaveLength(1);
    // The counters of the command's own worker, which fetched and (as the writer) committed the run's slices.
    const requests = text
      .split('\n')
      .filter(
        (line) => line.startsWith('bvsync_api_requests_total{') && line.includes(`prefix="${fx.config.redisPrefix}"`),
      );
    expect(requests.reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)).toBeGreaterThan(0);
    expect(series('bvsync_runs_finished_total').find((line) => line.includes('status="complete"'))).toMatch(/ 1$/);
    expect(text).toMatch(new RegExp(`push_time_seconds\\{${group}\\} [1-9]`));
    expect(text).not.toContain(`push_failure_time_seconds{${group}} 1`);
  }, 120_000);
});
