// Runs in the browser, inside the report page: draws each chart with Observable Plot (inlined above this script,
// with d3) from the data embedded in the page. Plain JavaScript, because it is inlined as is.
/* global Plot */
(function drawReport() {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const date = (day) => new Date(`${day}T00:00:00Z`);
  const width = Math.min(1100, document.body.clientWidth - 48);
  const shortUrl = (url) => url.replace(/^https?:\/\/(www\.)?/, '');
  // Ticks on days the chart has (never hours, never one day twice), at most ten: a window of three days had the axis
  // repeat "Nov 18" between hourly ticks. Proved by the overlap check of test/ops/report.int.test.ts.
  const dayAxis = (rows) => {
    const days = [...new Set(rows.map((d) => d.day))].sort();
    const step = Math.ceil(days.length / 10);
    return { type: 'utc', label: null, ticks: days.filter((_, i) => i % step === 0).map(date), tickFormat: '%b %d' };
  };

  // One function per question of the report; each returns a Plot figure (or null when the window has no data).
  const CHARTS = {
    // One small panel per topic (a shared 0-100% axis): the week's visibility and its 95% interval band.
    // Too few weeks for a line (report-html.ts marks the section): points with their interval only.
    weeklyVisibility: (brand, pointsOnly) => {
      const rows = brand.weeklyVisibility.map((d) => ({ ...d, at: date(d.week) }));
      const topics = [...new Set(rows.map((d) => d.topic))].sort();
      return Plot.plot({
        width,
        height: 40 + 100 * topics.length,
        marginLeft: 50,
        marginRight: 170,
        y: { percent: true, label: 'visibility (%)', grid: true, domain: [0, 100], ticks: 3 },
        // One tick per week shown (its first day in the window), not day ticks between them.
        // Inset: a point on the first or last week is not cut in half by the frame.
        x: {
          type: 'utc',
          label: 'week starting',
          inset: 24,
          ticks: [...new Set(rows.map((d) => +d.at))].map((t) => new Date(t)),
          tickFormat: '%b %d',
        },
        fy: { label: null, domain: topics, padding: 0.2 },
        color: { domain: topics, scheme: 'tableau10' },
        facet: { data: rows, y: 'topic' },
        marks: [
          Plot.frame({ stroke: '#d0d7de' }),
          pointsOnly
            ? null
            : Plot.areaY(rows, { x: 'at', y1: 'low', y2: 'high', fill: 'topic', fillOpacity: 0.18, curve: 'linear' }),
          // The interval as an error bar too: a band needs two weeks, a window may hold one.
          Plot.ruleX(rows, { x: 'at', y1: 'low', y2: 'high', stroke: 'topic', strokeOpacity: 0.5, strokeWidth: 3 }),
          pointsOnly ? null : Plot.lineY(rows, { x: 'at', y: 'visibility', stroke: 'topic', strokeWidth: 2 }),
          Plot.dot(rows, {
            x: 'at',
            y: 'visibility',
            fill: 'topic',
            r: pointsOnly ? 4.5 : 3,
            tip: true,
            channels: {
              answers: 'conversations',
              mentioned: 'mentioned',
              days: 'days',
              'interval low': (d) => d.low,
              'interval high': (d) => d.high,
            },
          }),
        ],
      });
    },
    shareOfVoice: (brand) => {
      // The brand itself at the bottom, then competitors by mentions over the window, "other brands" on top in grey.
      const totals = new Map();
      for (const d of brand.shareOfVoice) totals.set(d.brand, (totals.get(d.brand) || 0) + d.mentioned);
      const own = brand.shareOfVoice.find((d) => d.own)?.brand;
      const order = [...totals.keys()].sort((a, b) =>
        a === own
          ? -1
          : b === own
            ? 1
            : a === 'other brands'
              ? 1
              : b === 'other brands'
                ? -1
                : totals.get(b) - totals.get(a),
      );
      const palette = [
        '#4e79a7',
        '#f28e2b',
        '#e15759',
        '#76b7b2',
        '#59a14f',
        '#edc948',
        '#b07aa1',
        '#ff9da7',
        '#9c755f',
      ];
      // Every day carries every series (zero-filled in report-data.ts), so the normalized stack has no gaps.
      return Plot.plot({
        width,
        height: 320,
        y: { percent: true, label: 'share of voice (%)', grid: true },
        x: dayAxis(brand.shareOfVoice),
        color: {
          legend: true,
          domain: order,
          range: order.map((name, i) => (name === 'other brands' ? '#bab0ac' : palette[i % palette.length])),
        },
        marks: [
          Plot.areaY(brand.shareOfVoice, {
            x: (d) => date(d.day),
            y: 'mentioned',
            fill: 'brand',
            offset: 'normalize',
            order,
            tip: true,
          }),
          Plot.ruleY([0]),
        ],
      });
    },
    // One order for every brand: the spec's (data.ownershipOrder), bottom of the stack = left of the legend.
    citationsByOwnership: (brand) => {
      const palette = [
        '#4e79a7',
        '#e15759',
        '#f28e2b',
        '#76b7b2',
        '#59a14f',
        '#edc948',
        '#b07aa1',
        '#9c755f',
        '#bab0ac',
        '#ff9da7',
        '#86bcb6',
        '#d37295',
      ];
      const present = new Set(brand.citationsByOwnership.map((d) => d.ownership));
      const values = data.ownershipOrder.filter((value) => present.has(value));
      const labelOf = new Map(brand.citationsByOwnership.map((d) => [d.ownership, d.label]));
      const labels = values.map((value) => labelOf.get(value));
      return Plot.plot({
        width,
        height: 320,
        y: { label: 'citations', grid: true },
        x: dayAxis(brand.citationsByOwnership),
        color: {
          legend: true,
          domain: labels,
          range: values.map((value) => palette[data.ownershipOrder.indexOf(value) % palette.length]),
        },
        marks: [
          Plot.areaY(brand.citationsByOwnership, {
            x: (d) => date(d.day),
            y: 'occurrences',
            fill: 'label',
            order: labels,
            tip: true,
          }),
          Plot.ruleY([0]),
        ],
      });
    },
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
          Plot.barX(brand.topDomains, {
            x: 'occurrences',
            y: 'domain',
            fill: (d) => (d.firstParty ? 'first party' : 'other'),
            sort: { y: '-x' },
            tip: true,
          }),
          Plot.text(brand.topDomains, {
            x: 'occurrences',
            y: 'domain',
            text: (d) => String(d.occurrences),
            dx: 4,
            textAnchor: 'start',
          }),
          Plot.ruleX([0]),
        ],
      }),
    // Whose product it is by colour and dash (the brand's solid blue, competitors' dashed orange); the arrow points
    // from the first day's rank to the last day's, rightwards = moved up.
    rankMovers: (brand) => {
      const whose = (d) => (d.subject === 'brand' ? "brand's product" : "competitor's product");
      const label = (d) => `${d.product}${d.subject === 'brand' ? '' : ' (competitor)'}`;
      const ours = brand.rankMovers.filter((d) => d.subject === 'brand');
      const theirs = brand.rankMovers.filter((d) => d.subject !== 'brand');
      // Two ranks of room beyond the lowest rank: a fall's label, left of its arrowhead, stays off the product names.
      const lowest = Math.max(...brand.rankMovers.flatMap((d) => [d.firstRank, d.lastRank]));
      const arrow = { x1: 'firstRank', x2: 'lastRank', y: label, stroke: whose, strokeWidth: 2.5, headLength: 8 };
      return Plot.plot({
        width,
        height: 50 + 26 * brand.rankMovers.length,
        marginLeft: 260,
        marginRight: 50,
        x: {
          label: 'visibility rank (1 = top) — first day → last day of the window',
          reverse: true,
          grid: true,
          domain: [1, lowest + 2],
        },
        y: { label: null, domain: brand.rankMovers.map(label) },
        color: { legend: true, domain: ["brand's product", "competitor's product"], range: ['#4e79a7', '#f28e2b'] },
        marks: [
          Plot.arrow(ours, arrow),
          Plot.arrow(theirs, { ...arrow, strokeDasharray: '5,3' }),
          Plot.dot(brand.rankMovers, {
            x: 'firstRank',
            y: label,
            fill: 'currentColor',
            r: 2.5,
            tip: { channels: { subject: 'subject', first: 'firstRank', last: 'lastRank' } },
          }),
          // Constant fills (a fill channel would go through the colour scale above).
          Plot.text(
            brand.rankMovers.filter((d) => d.change > 0),
            { x: 'lastRank', y: label, text: (d) => `▲${d.change}`, fill: '#1a7f37', dx: 8, textAnchor: 'start' },
          ),
          // A fall points left (the axis is reversed): its label goes left of the arrowhead, not over it.
          Plot.text(
            brand.rankMovers.filter((d) => d.change < 0),
            { x: 'lastRank', y: label, text: (d) => `▼${-d.change}`, fill: '#cf222e', dx: -12, textAnchor: 'end' },
          ),
        ],
      });
    },
    trackedUrls: (brand) =>
      Plot.plot({
        width,
        height: 40 + 24 * brand.trackedUrls.length,
        marginLeft: 320,
        marginRight: 110,
        x: { label: 'answers citing the page', grid: true },
        y: { label: null, tickFormat: (url) => (url.length > 48 ? `${url.slice(0, 47)}…` : url) },
        marks: [
          Plot.barX(brand.trackedUrls, {
            x: 'citations',
            y: (d) => shortUrl(d.url),
            fill: '#76b7b2',
            sort: { y: '-x' },
            tip: true,
          }),
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
      target.append(CHARTS[section.dataset.chart](brand, section.dataset.pointsOnly === 'true'));
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
