import { describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/ops/report-data.js';
import { coverageText, renderReportHtml, REPORT_CHARTS } from '../../src/ops/report-html.js';

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
const nothing = { first: null, last: null, days: 0, answers: 0 };
const coverage = {
  weeklyVisibility: nothing,
  shareOfVoice: nothing,
  citationsByOwnership: nothing,
  topDomains: nothing,
  rankMovers: nothing,
  trackedUrls: nothing,
};
const empty = {
  hasData: true,
  headline,
  weeklyVisibility: [],
  shareOfVoice: [],
  citationsByOwnership: [],
  topDomains: [],
  rankMovers: [],
  trackedUrls: [],
  coverage,
};
const week = (start: string, topic: string) => ({
  week: start,
  topic,
  days: 7,
  conversations: 10,
  mentioned: 2,
  visibility: 0.2,
  low: 0.1,
  high: 0.3,
});

function data(overrides: Partial<ReportData> = {}): ReportData {
  return {
    generatedAt: '2026-11-21T00:00:00.000Z',
    database: '/data/bv.duckdb',
    from: '2026-11-01',
    to: '2026-11-20',
    windowDays: 20,
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
    const html = renderReportHtml(
      data({
        brands: [
          { brandId: 7, name: 'Acme', ...empty },
          { brandId: 8, name: null, ...empty },
        ],
      }),
    );
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

  it('says under each chart the days and answers it covers, and when its data holds fewer days than the window', () => {
    expect(coverageText({ first: '2026-11-13', last: '2026-11-20', days: 8, answers: 1234 }, 8)).toBe(
      'Nov 13 – Nov 20, 8 days, 1,234 answers',
    );
    expect(coverageText({ first: '2026-11-18', last: '2026-11-20', days: 3, answers: 412 }, 28)).toBe(
      "Nov 18 – Nov 20: 3 of the window's 28 days have data, 412 answers",
    );
    expect(coverageText({ first: '2026-11-20', last: '2026-11-20', days: 1, answers: 1 }, 28)).toBe(
      "Nov 20: 1 of the window's 28 days has data, 1 answer",
    );
    expect(coverageText(nothing, 28)).toBe('');
    const brand = {
      brandId: 7,
      name: 'Acme',
      ...empty,
      weeklyVisibility: [week('2026-11-01', 'a'), week('2026-11-02', 'a')],
      coverage: {
        ...coverage,
        weeklyVisibility: { first: '2026-11-01', last: '2026-11-20', days: 20, answers: 900 },
        trackedUrls: { first: '2026-11-18', last: '2026-11-20', days: 3, answers: 120 },
      },
    };
    const html = renderReportHtml(data({ brands: [brand] }));
    expect(html).toContain(
      'data-coverage="weeklyVisibility">Nov 1 – Nov 20, 20 days, 900 answers; 2 weeks, too few for a line: shown as points</p>',
    );
    expect(html).toContain('data-chart="weeklyVisibility" data-brand="7" data-points-only="true"');
    expect(html).toContain(
      `data-coverage="trackedUrls">Nov 18 – Nov 20: 3 of the window&#39;s 20 days have data, 120 answers</p>`,
    );
    expect(html).not.toContain('data-coverage="topDomains"');
    // Three weeks make a line.
    const longer = renderReportHtml(
      data({ brands: [{ ...brand, weeklyVisibility: [...brand.weeklyVisibility, week('2026-11-09', 'a')] }] }),
    );
    expect(longer).not.toContain('data-points-only');
    expect(longer).not.toContain('too few for a line');
  });

  it('cannot be broken out of by the data: names are escaped in HTML and in the embedded JSON', () => {
    const hostile = '</script><img src=x onerror=alert(1)>';
    const html = renderReportHtml(
      data({
        brands: [
          { brandId: 7, name: hostile, ...empty, topDomains: [{ domain: hostile, firstParty: false, occurrences: 1 }] },
        ],
      }),
    );
    expect(html).not.toContain('<img src=x');
    const json = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!;
    expect(JSON.parse(json).brands[0].topDomains[0].domain).toBe(hostile);
  });
});
