import { conversationBackfill } from './throughput.js';
delete process.env.MALLOC_ARENA_MAX;
for (const [label, days, opts] of [
  ['heap192 1M', 100, '--max-old-space-size=192'],
  ['heap192 100k', 10, '--max-old-space-size=192'],
] as const) {
  const f = await conversationBackfill(days, opts);
  console.log(label, Math.round(f.peakRssMb), 'MB rss; heap', Math.round(f.report.peakHeapMb), 'ext', Math.round(f.report.peakExternalMb), 's', f.seconds.toFixed(1));
}
