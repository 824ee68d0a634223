import { describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/ops/report-data.js';
import { renderReportHtml, REPORT_CHARTS } from '../../src/ops/report-html.js';

const none = { numerator: 0, denominator: 0, value: null, days: 0 };
const headline = {
  visibility: { numerator: 30, denominator: 120, value: 0.25, days: 20 },
  previousVisibility: { numerator: 20, denominator: 100, value: 0.2, days: 20 },
  shareOfVoice: none,
  previousShareOfVoice: none,
  previousFrom: '2026-10-12',
  previousTo: '2026-10-31',
  periodDays: 20,
};
const empty = { hasData: true, headline, weeklyVisibility: [], shareOfVoice: [], citationsByOwnership: [], topDomains: [], rankMovers: [], trackedUrls: [] };

function data(overrides: Partial<ReportData> = {}): ReportData {
  return {
    generatedAt: '2026-11-21T00:00:00.000Z',
    database: '/data/bv.duckdb',
    from: '2026-11-01',
    to: '2026-11-20',
    lastRun: { runId: 'sync-1', kind: 'sync', status: 'complete', finishedAt: '2026-11-21T00:00:00.000Z' },
    brands: [{ brandId: 7, name: 'Acme', ...empty }],
    unknownBrands: [],
    knownBrands: [7],
    ownershipOrder: ['first_party', 'other'],
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

  it('compares with no previous period holding less than half its days, and says so', () => {
    const short = { ...headline, previousVisibility: { numerator: 9, denominator: 158, value: 9 / 158, days: 2 } };
    const html = renderReportHtml(data({ brands: [{ brandId: 7, name: 'Acme', ...empty, headline: short }] }));
    expect(html).toContain('no comparison: the previous period (2026-10-12 to 2026-10-31) holds 2 of its 20 days');
    expect(html).not.toContain('pts vs');
  });

  it('heads each brand with its visibility and share of voice and the change in points against the period before', () => {
    const html = renderReportHtml(data());
    expect(html).toContain('data-figure="visibility" data-value="0.25" data-previous="0.2"');
    expect(html).toContain('30 of 120 answers mention the brand');
    expect(html).toContain('+5.0 pts vs 2026-10-12 to 2026-10-31 (20.0%)');
    expect(html).toContain('no data in the previous period (2026-10-12 to 2026-10-31)');
  });

  it('cannot be broken out of by the data: names are escaped in HTML and in the embedded JSON', () => {
    const hostile = '</script><img src=x onerror=alert(1)>';
    const html = renderReportHtml(data({ brands: [{ brandId: 7, name: hostile, ...empty, topDomains: [{ domain: hostile, firstParty: false, occurrences: 1 }] }] }));
    expect(html).not.toContain('<img src=x');
    const json = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!;
    expect(JSON.parse(json).brands[0].topDomains[0].domain).toBe(hostile);
  });
});
