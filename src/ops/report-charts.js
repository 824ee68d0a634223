// Runs in the browser, inside the report page: draws each chart with Observable Plot (inlined above this script,
// with d3) from the data embedded in the page. Plain JavaScript, because it is inlined as is.
/* global Plot */
(function drawReport() {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const date = (day) => new Date(`${day}T00:00:00Z`);
  const width = Math.min(1100, document.body.clientWidth - 48);
  const shortUrl = (url) => url.replace(/^https?:\/\/(www\.)?/, '');
  const days = Math.round((date(data.to) - date(data.from)) / 86400000) + 1;
  // Day ticks (never hours) however long the window: at most about ten labels.
  const dayAxis = { type: 'utc', label: null, ticks: Math.min(days, 10), tickFormat: '%b %d' };

  // One function per question of the report; each returns a Plot figure (or null when the window has no data).
  const CHARTS = {
    visibility: (brand) =>
      Plot.plot({
        width,
        height: 320,
        y: { percent: true, label: 'visibility (%)', grid: true, domain: [0, 100] },
        x: dayAxis,
        color: { legend: true },
        marks: [
          Plot.lineY(brand.visibility, { x: (d) => date(d.day), y: 'visibility', stroke: 'topic', curve: 'monotone-x', tip: true }),
          Plot.dot(brand.visibility, { x: (d) => date(d.day), y: 'visibility', fill: 'topic', r: 2 }),
        ],
      }),
    shareOfVoice: (brand) => {
      // The brand itself at the bottom, then competitors by mentions over the window, "other brands" on top in grey.
      const totals = new Map();
      for (const d of brand.shareOfVoice) totals.set(d.brand, (totals.get(d.brand) || 0) + d.mentioned);
      const own = brand.shareOfVoice.find((d) => d.own)?.brand;
      const order = [...totals.keys()].sort((a, b) => (a === own ? -1 : b === own ? 1 : a === 'other brands' ? 1 : b === 'other brands' ? -1 : totals.get(b) - totals.get(a)));
      const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
      return Plot.plot({
        width,
        height: 320,
        y: { percent: true, label: 'share of voice (%)', grid: true },
        x: dayAxis,
        color: { legend: true, domain: order, range: order.map((name, i) => (name === 'other brands' ? '#bab0ac' : palette[i % palette.length])) },
        marks: [
          Plot.areaY(brand.shareOfVoice, { x: (d) => date(d.day), y: 'mentioned', fill: 'brand', offset: 'normalize', order, tip: true }),
          Plot.ruleY([0]),
        ],
      });
    },
    citationsByOwnership: (brand) =>
      Plot.plot({
        width,
        height: 320,
        y: { label: 'citations', grid: true },
        x: dayAxis,
        color: { legend: true, scheme: 'tableau10' },
        marks: [
          Plot.areaY(brand.citationsByOwnership, { x: (d) => date(d.day), y: 'occurrences', fill: 'ownership', order: 'sum', tip: true }),
          Plot.ruleY([0]),
        ],
      }),
    topDomains: (brand) =>
      Plot.plot({
        width,
        height: 40 + 24 * brand.topDomains.length,
        marginLeft: 180,
        marginRight: 40,
        x: { label: 'citations in the window', grid: true },
        y: { label: null },
        color: { legend: true, domain: ['first party', 'other'], range: ['#4e79a7', '#bab0ac'] },
        marks: [
          Plot.barX(brand.topDomains, { x: 'occurrences', y: 'domain', fill: (d) => (d.firstParty ? 'first party' : 'other'), sort: { y: '-x' }, tip: true }),
          Plot.text(brand.topDomains, { x: 'occurrences', y: 'domain', text: (d) => String(d.occurrences), dx: 4, textAnchor: 'start' }),
          Plot.ruleX([0]),
        ],
      }),
    rankMovers: (brand) =>
      Plot.plot({
        width,
        height: 40 + 26 * brand.rankMovers.length,
        marginLeft: 220,
        x: { label: 'visibility rank (1 = top) — first day → last day of the window', reverse: true, grid: true },
        y: { label: null, domain: brand.rankMovers.map((d) => d.product) },
        color: { legend: true, domain: ['moved up', 'moved down'], range: ['#59a14f', '#e15759'] },
        marks: [
          Plot.arrow(brand.rankMovers, { x1: 'firstRank', x2: 'lastRank', y: 'product', stroke: (d) => (d.change > 0 ? 'moved up' : 'moved down'), strokeWidth: 2, headLength: 8 }),
          Plot.dot(brand.rankMovers, { x: 'firstRank', y: 'product', fill: 'currentColor', r: 2.5, tip: { channels: { subject: 'subject', first: 'firstRank', last: 'lastRank' } } }),
        ],
      }),
    trackedUrls: (brand) =>
      Plot.plot({
        width,
        height: 40 + 24 * brand.trackedUrls.length,
        marginLeft: 320,
        marginRight: 110,
        x: { label: 'answers citing the page', grid: true },
        y: { label: null, tickFormat: (url) => (url.length > 48 ? `${url.slice(0, 47)}…` : url) },
        marks: [
          Plot.barX(brand.trackedUrls, { x: 'citations', y: (d) => shortUrl(d.url), fill: '#76b7b2', sort: { y: '-x' }, tip: true }),
          Plot.text(brand.trackedUrls, {
            x: 'citations',
            y: (d) => shortUrl(d.url),
            text: (d) => (d.citationRate === null ? '' : `${(d.citationRate * 100).toFixed(1)}% of ${d.conversations}`),
            dx: 4,
            textAnchor: 'start',
          }),
          Plot.ruleX([0]),
        ],
      }),
  };

  let drawn = 0;
  const failures = [];
  for (const section of document.querySelectorAll('[data-chart]')) {
    const brand = data.brands.find((b) => String(b.brandId) === section.dataset.brand);
    const rows = brand[section.dataset.chart];
    const target = section.querySelector('.plot');
    if (!rows.length) {
      target.textContent = 'No data for this brand in the window.';
      section.dataset.empty = 'true';
      continue;
    }
    try {
      target.append(CHARTS[section.dataset.chart](brand));
      section.dataset.drawn = 'true';
      drawn += 1;
    } catch (error) {
      target.textContent = `This chart could not be drawn: ${error.message}`;
      failures.push(`${section.dataset.chart}: ${error.message}`);
    }
  }
  document.body.dataset.charts = String(drawn);
  document.body.dataset.failures = failures.join('; ');
  document.body.dataset.rendered = 'true';
})();
