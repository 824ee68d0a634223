import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BrandReport, ChartCoverage, ChartKey, Ratio, ReportData } from './report-data.js';

/** The report's charts in page order: the key of the brand's data, a title and the one line that says how to read it. */
export const REPORT_CHARTS: ReadonlyArray<{ key: ChartKey; title: string; explanation: string }> = [
  {
    key: 'weeklyVisibility',
    title: 'Weekly visibility per topic',
    explanation:
      "Share of the week's AI answers on each topic that mention the brand (mentioned answers / answers, summed over the week; weeks start Monday, cut to the window). " +
      'The band is the 95% Wilson interval of those sums: wide when a week had few answers.',
  },
  {
    key: 'shareOfVoice',
    title: 'Share of voice against competitors',
    explanation:
      "Each brand's mentions as a share of the mentions of every brand named in the day's answers (v_share_of_voice_daily). " +
      'The brand is at the bottom, its five biggest rivals above it, and "other brands" in grey on top.',
  },
  {
    key: 'citationsByOwnership',
    title: 'Citations by ownership over time',
    explanation:
      "Sources cited in answers each day, by who owns the cited page; stacked bottom to top in the legend's order (left to right), the same order and colours for every brand.",
  },
  {
    key: 'topDomains',
    title: 'Top cited domains',
    explanation:
      'Citations of each followed domain over the window (domains of tracked pages, competitors and the config).',
  },
  {
    key: 'rankMovers',
    title: 'Product rank movers',
    explanation:
      "Visibility rank on the first and last day each product was ranked in the window. The brand's own products come first, in blue (a dot when unchanged); " +
      "then the competitors' products that moved most, in orange (dashed).",
  },
  {
    key: 'trackedUrls',
    title: 'Tracked URL performance',
    explanation: 'Answers citing each tracked page over the window, with the share of the answers read that cited it.',
  },
];

const require = createRequire(import.meta.url);

/** The UMD bundles of d3 and Observable Plot from node_modules, inlined so the page works offline and alone. */
function chartLibraries(): string {
  const d3 = join(dirname(require.resolve('d3')), 'd3.min.js');
  const plot = join(dirname(require.resolve('@observablehq/plot')), '..', 'dist', 'plot.umd.min.js');
  return [readFileSync(d3, 'utf8'), readFileSync(plot, 'utf8')].map(inlineScript).join('\n');
}

// `</script` inside an inlined script or JSON would end the element early.
function inlineScript(source: string): string {
  return `<script>${source.replace(/<\/script/gi, '<\\/script')}</script>`;
}

function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const percent = (value: number | null) => (value === null ? 'no data' : `${(value * 100).toFixed(1)}%`);
const count = (value: number) => value.toLocaleString('en-US');

/** A period holding fewer days than this share of its length is not compared with: its figure is not the period's. */
const COMPARABLE_SHARE = 0.5;

/** "+2.3 pts vs <period> (21.0%)" between two ratios, or why there is none. */
function changeText(now: Ratio, before: Ratio, period: string, periodDays: number): string {
  if (before.value === null) return `no data in the previous period (${period})`;
  if (before.days < periodDays * COMPARABLE_SHARE) {
    return `no comparison: the previous period (${period}) holds ${before.days} of its ${periodDays} days`;
  }
  if (now.value === null) return `no data in the window; ${percent(before.value)} in ${period}`;
  const rounded = Math.round((now.value - before.value) * 1000) / 10;
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : '±'}${Math.abs(rounded).toFixed(1)} pts vs ${period} (${percent(before.value)})`;
}

/** Fewer weeks than this are drawn as points with their interval: a line through one or two points reads as a trend. */
const WEEKS_FOR_A_LINE = 3;

/** The weeks a brand's weekly visibility chart shows. */
function weeksShown(brand: BrandReport): number {
  return new Set(brand.weeklyVisibility.map((row) => row.week)).size;
}

const dayLabel = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * What a chart covers, under its title: "Nov 13 – Nov 20, 8 days, 1,234 answers", or, when its data holds fewer days
 * than the window, "Nov 18 – Nov 20: 3 of the window's 28 days have data, 412 answers". Empty when it has no data.
 */
export function coverageText(coverage: ChartCoverage, windowDays: number): string {
  if (coverage.days === 0 || !coverage.first || !coverage.last) return '';
  const span =
    coverage.first === coverage.last
      ? dayLabel(coverage.first)
      : `${dayLabel(coverage.first)} – ${dayLabel(coverage.last)}`;
  const days =
    coverage.days >= windowDays
      ? `, ${count(coverage.days)} ${coverage.days === 1 ? 'day' : 'days'}`
      : `: ${count(coverage.days)} of the window's ${count(windowDays)} days ${coverage.days === 1 ? 'has' : 'have'} data`;
  return `${span}${days}, ${count(coverage.answers)} ${coverage.answers === 1 ? 'answer' : 'answers'}`;
}

/** The coverage line of a chart, and for weekly visibility of too few weeks, that it shows points rather than lines. */
function chartNote(brand: BrandReport, key: ChartKey, windowDays: number): string {
  const text = coverageText(brand.coverage[key], windowDays);
  if (!text) return '';
  const weeks = weeksShown(brand);
  const points =
    key === 'weeklyVisibility' && weeks < WEEKS_FOR_A_LINE
      ? `; ${weeks} ${weeks === 1 ? 'week' : 'weeks'}, too few for a line: shown as points`
      : '';
  return `
      <p class="coverage" data-coverage="${key}">${escapeHtml(text + points)}</p>`;
}

/** The brand's headline figures, computed from the numerators over the whole window (see report-data.ts). */
function headlineHtml(brand: BrandReport): string {
  const h = brand.headline;
  const figure = (name: string, label: string, now: Ratio, before: Ratio, of: string) => `
      <div class="figure" data-figure="${name}" data-value="${now.value ?? ''}" data-previous="${before.value ?? ''}">
        <div class="label">${label}</div>
        <div class="value">${percent(now.value)}</div>
        <div class="detail">${count(now.numerator)} of ${count(now.denominator)} ${of}</div>
        <div class="change" data-change="${name}">${escapeHtml(changeText(now, before, `${h.previousFrom} to ${h.previousTo}`, h.periodDays))}</div>
      </div>`;
  return `
    <div class="headline">${figure('visibility', 'Visibility', h.visibility, h.previousVisibility, 'answers mention the brand')}${figure(
      'shareOfVoice',
      'Share of voice',
      h.shareOfVoice,
      h.previousShareOfVoice,
      "mentions of every brand named are the brand's",
    )}
    </div>`;
}

function brandLabel(brand: BrandReport): string {
  return brand.name ? `${brand.name} (brand ${brand.brandId})` : `Brand ${brand.brandId}`;
}

const STYLE = `
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; background: #fff; }
  header { border-bottom: 1px solid #d0d7de; margin-bottom: 16px; padding-bottom: 8px; }
  h1 { font-size: 22px; margin: 0 0 6px; }
  h2 { font-size: 18px; margin: 28px 0 4px; border-top: 1px solid #d0d7de; padding-top: 16px; }
  h3 { font-size: 15px; margin: 18px 0 2px; }
  .summary { display: flex; flex-wrap: wrap; gap: 6px 28px; margin: 0; }
  .summary dt { color: #59636e; } .summary dd { margin: 0; font-weight: 600; }
  .summary div { display: flex; gap: 6px; }
  p.explain { color: #59636e; margin: 0 0 8px; }
  p.coverage { color: #1f2328; font-size: 12.5px; font-weight: 600; margin: 0 0 6px; }
  nav a { margin-right: 14px; }
  .headline { display: flex; flex-wrap: wrap; gap: 16px; margin: 10px 0 4px; }
  .figure { border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 16px; min-width: 260px; max-width: 420px; }
  .figure .label { color: #59636e; font-size: 13px; }
  .figure .value { font-size: 28px; font-weight: 650; line-height: 1.2; }
  .figure .detail, .figure .change { color: #59636e; font-size: 12.5px; }
  .figure .change { color: #1f2328; }
  p.nodata { color: #9a6700; font-weight: 600; }
`;

/** A single self-contained HTML page: the data as JSON, the chart libraries and the drawing script inlined. */
export function renderReportHtml(data: ReportData): string {
  const summary = [
    ['Brands', data.brands.map(brandLabel).join(', ') || 'none'],
    ['Window', `${data.from} to ${data.to}`],
    [
      'Last run',
      data.lastRun
        ? `${data.lastRun.runId} (${data.lastRun.kind}, ${data.lastRun.status}, finished ${data.lastRun.finishedAt ?? '?'})`
        : 'none recorded',
    ],
    ['Database', data.database],
    ['Generated', data.generatedAt],
  ];
  const sections = data.brands
    .map((brand) => {
      const charts = REPORT_CHARTS.map(
        (chart) => `
    <section data-chart="${chart.key}" data-brand="${brand.brandId}"${chart.key === 'weeklyVisibility' && weeksShown(brand) < WEEKS_FOR_A_LINE ? ' data-points-only="true"' : ''}>
      <h3>${escapeHtml(chart.title)}</h3>
      <p class="explain">${escapeHtml(chart.explanation)}</p>${chartNote(brand, chart.key, data.windowDays)}
      <div class="plot"></div>
    </section>`,
      ).join('');
      const nodata = brand.hasData
        ? ''
        : `
    <p class="nodata">No data for this brand between ${escapeHtml(data.from)} and ${escapeHtml(data.to)}.</p>`;
      return `
  <article id="brand-${brand.brandId}">
    <h2>${escapeHtml(brandLabel(brand))}</h2>${nodata}${headlineHtml(brand)}${charts}
  </article>`;
    })
    .join('');
  const nav = data.brands
    .map((brand) => `<a href="#brand-${brand.brandId}">${escapeHtml(brandLabel(brand))}</a>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bvsync report ${escapeHtml(data.from)} to ${escapeHtml(data.to)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>Brand visibility report</h1>
  <dl class="summary">${summary.map(([term, value]) => `<div><dt>${term}</dt><dd>${escapeHtml(value!)}</dd></div>`).join('')}</dl>
  <nav>${nav}</nav>
</header>
<main>${sections}
</main>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
${chartLibraries()}
${inlineScript(readFileSync(join(import.meta.dirname, 'report-charts.js'), 'utf8'))}
</body>
</html>
`;
}
