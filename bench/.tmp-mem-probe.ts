import { conversationBackfill } from './throughput.js';
for (const [label, days, opts, arena] of [
  ['heap192+arena2 1M', 100, '--max-old-space-size=192', '2'],
  ['heap192+arena2 100k', 10, '--max-old-space-size=192', '2'],
  ['heap192 1M', 100, '--max-old-space-size=192 --stack-size=984', ''],
  ['default 1M', 100, '', ''],
] as const) {
  if (arena) process.env.MALLOC_ARENA_MAX = arena; else delete process.env.MALLOC_ARENA_MAX;
  const f = await conversationBackfill(days, opts || undefined);
  console.log(label, Math.round(f.peakRssMb), 'MB rss; heap', Math.round(f.report.peakHeapMb), 'ext', Math.round(f.report.peakExternalMb), 's', f.seconds.toFixed(1));
}
