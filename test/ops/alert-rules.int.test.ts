import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PrometheusMetrics } from '../../src/ops/prometheus-metrics.js';
import { runTool, toolsSkipReason } from '../support/prometheus-tools.js';

/**
 * The alert rules and the Alertmanager route as files, checked by the real tools: `promtool check rules`, the unit
 * tests of deploy/prometheus/alerts.test.yml (`promtool test rules`), `promtool check config` and `amtool
 * check-config`. Every bvsync metric a rule names is one bvsync exports.
 */

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy');
const RULES = join(DEPLOY, 'prometheus', 'alerts.yml');
const skipReason = toolsSkipReason('promtool', 'amtool');
if (skipReason) console.warn(skipReason);

describe.skipIf(skipReason !== undefined)('the alert rules, with promtool', () => {
  it('pass promtool check rules', () => {
    const result = runTool('promtool', ['check', 'rules', RULES]);
    expect(result.status, result.output).toBe(0);
    expect(result.output).toMatch(/SUCCESS: 6 rules found/);
  });

  it('pass their unit tests (promtool test rules alerts.test.yml)', () => {
    const result = runTool('promtool', ['test', 'rules', join(DEPLOY, 'prometheus', 'alerts.test.yml')]);
    expect(result.status, result.output).toBe(0);
    expect(result.output).toMatch(/SUCCESS/);
  });

  it('the example Prometheus config and Alertmanager route are valid', () => {
    const prometheus = runTool('promtool', ['check', 'config', join(DEPLOY, 'prometheus', 'prometheus.yml')]);
    expect(prometheus.status, prometheus.output).toBe(0);
    const alertmanager = runTool('amtool', ['check-config', join(DEPLOY, 'alertmanager', 'alertmanager.yml')]);
    expect(alertmanager.status, alertmanager.output).toBe(0);
  });
});

describe('the metrics the alert rules name', () => {
  it("are all exported by bvsync: a worker's, a writer's, or a one-off command's pushed ones", async () => {
    const named = new Set([...readFileSync(RULES, 'utf8').matchAll(/\bbvsync_[a-z_]+/g)].map((match) => match[0]));
    expect(named.size).toBeGreaterThanOrEqual(8);
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.setWriterSource(() => true);
    metrics.setDiskSource(() => ({ folder: '/data', freeBytes: 1, sizeBytes: 2 }));
    metrics.recordRunResult('sync', 'failed', 1, new Date());
    const exported = new Set((await metrics.registry.getMetricsAsJSON()).map((metric) => metric.name));
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
  });
});
