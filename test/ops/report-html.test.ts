import { describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/ops/report-data.js';
import { renderReportHtml, REPORT_CHARTS } from '../../src/ops/report-html.js';

const empty = { visibility: [], shareOfVoice: [], citationsByOwnership: [], topDomains: [], rankMovers: [], trackedUrls: [] };

function data(overrides: Partial<ReportData> = {}): ReportData {
  return {
    generatedAt: '2026-11-21T00:00:00.000Z',
    database: '/data/bv.duckdb',
    from: '2026-11-01',
    to: '2026-11-20',
    lastRun: { runId: 'sync-1', kind: 'sync', status: 'complete', finishedAt: '2026-11-21T00:00:00.000Z' },
    brands: [{ brandId: 7, name: 'Acme', ...empty }],
    ...overrides,
  };
}

describe('renderReportHtml', () => {
  it('has a summary header and, per brand, one titled and explained section per chart', () => {
    const html = renderReportHtml(data({ brands: [{ brandId: 7, name: 'Acme', ...empty }, { brandId: 8, name: null, ...empty }] }));
    expect(html).toContain('2026-11-01 to 2026-11-20');
    expect(html).toContain('sync-1 (sync, complete');
    expect(html).toContain('Acme (brand 7)');
    expect(html).toContain('Brand 8');
    for (const chart of REPORT_CHARTS) {
      expect(html).toContain(`data-chart="${chart.key}" data-brand="7"`);
      expect(html).toContain(`data-chart="${chart.key}" data-brand="8"`);
      expect(html).toContain(chart.title);
    }
  });

  it('cannot be broken out of by the data: names are escaped in HTML and in the embedded JSON', () => {
    const hostile = '</script><img src=x onerror=alert(1)>';
    const html = renderReportHtml(data({ brands: [{ brandId: 7, name: hostile, ...empty, topDomains: [{ domain: hostile, firstParty: false, occurrences: 1 }] }] }));
    expect(html).not.toContain('<img src=x');
    const json = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!;
    expect(JSON.parse(json).brands[0].topDomains[0].domain).toBe(hostile);
  });
});
