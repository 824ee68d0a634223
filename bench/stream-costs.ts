/**
 * What each stream costs in API calls per brand per day, measured against the simulator by reading every slice
 * of a 7-day window of one brand; and conversations sliced by day vs by day and topic at three volumes, the numbers
 * behind the default of `sync.conversationsByTopic`; and the per-engine breakdowns against the reports they break
 * down, the numbers behind the default of `visibility_by_engine` (on) and `product_ranking_by_engine` (opt-in). Run alone: `npm run bench -- stream-costs`.
 */
import { createApiClient } from '../src/api/index.js';
import { addDays } from '../src/days.js';
import { startSimulator } from '../src/simulator/index.js';
import { distinctDomains } from '../src/streams/domains.js';
import { STREAM_NAMES, selectStreams } from '../src/streams/registry.js';
import { runSlice, type ChunkSink } from '../src/streams/run-slice.js';
import type { Dimensions, StreamDefinition } from '../src/streams/stream.js';
import { phaseOf } from '../src/engine/plan/plan.js';
import type { BenchResult } from './run.js';
import { parseConfig } from '../src/configuration.js';

const TODAY = '2026-11-20';
const DAYS = 7;
const nullSink: ChunkSink = { write: async () => {}, reset: async () => {} };

async function measure(scale: number, byTopic: boolean, streamNames?: string[]) {
  const sim = await startSimulator({ seed: 3, brands: 1, days: 30, scale, today: TODAY });
  const config = parseConfig({
    api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond: 10_000 },
    sync: {
      conversationsByTopic: byTopic,
      swotStatementIds: {
        '1': sim.truth
          .world(1)
          .swotStatements.slice(0, 1)
          .map((s) => s.id),
      },
      phrases: sim.truth.world(1).phrases.slice(0, 1),
    },
  });
  const client = createApiClient(config.api, { retryRateLimited: true });
  const days = Array.from({ length: DAYS }, (_, i) => addDays(TODAY, i - DAYS + 1));
  const world = sim.truth.world(1);
  // Phase 2 fans out over what phase 1 loads; the simulator's catalog stands in for the warehouse here.
  const dimensions: Dimensions = {
    domains: distinctDomains([...world.trackedUrls.map((u) => u.url), ...world.competitors.map((c) => c.website)]),
    topicIds: world.topics.filter((t) => !t.deleted).map((t) => t.id),
    pages: world.trackedUrls.map((u) => u.url).sort(),
    engines: [...world.brand.engines],
  };
  const perStream = new Map<string, number>();
  // Every stream, the opt-in ones too: their cost is what decides whether they are opt-in.
  for (const stream of selectStreams(streamNames ?? [...STREAM_NAMES]) as StreamDefinition[]) {
    sim.clearRequestLog();
    const slices = stream.slices({
      brandId: 1,
      days,
      sync: config.sync,
      dimensions:
        phaseOf(stream, config.sync) === 2
          ? dimensions
          : { domains: [], topicIds: dimensions.topicIds, pages: [], engines: [] },
    });
    for (const slice of slices) await runSlice(stream, { client, brandId: 1, slice, sync: config.sync }, nullSink);
    perStream.set(stream.name, sim.requestLog().length);
  }
  await client.close();
  await sim.close();
  return perStream;
}

async function simulatedBrandEngines(): Promise<string[]> {
  const sim = await startSimulator({ seed: 3, brands: 1, days: 1, scale: 1, today: TODAY });
  const engines = [...sim.truth.world(1).brand.engines];
  await sim.close();
  return engines;
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const all = await measure(100, false);
  for (const [stream, calls] of all) {
    results.push({
      scenario: 'stream-costs',
      metric: `${stream} calls per brand per day`,
      value: calls / DAYS,
      unit: 'calls',
      note: 'scale 100 answers/day, 7 days',
    });
  }
  // The per-engine breakdowns against the report they break down: the numbers behind their defaults (docs/syncing.md).
  const engines = (await simulatedBrandEngines()).length;
  for (const [byEngine, whole] of [
    ['visibility_by_engine', 'visibility'],
    ['product_ranking_by_engine', 'product_ranking'],
  ] as const) {
    results.push({
      scenario: 'stream-costs',
      metric: `${byEngine} vs ${whole}`,
      value: all.get(byEngine)! / all.get(whole)!,
      unit: 'x calls',
      note: `${engines} brand engines; ${(all.get(byEngine)! / DAYS).toFixed(1)} vs ${(all.get(whole)! / DAYS).toFixed(1)} calls per brand per day`,
    });
  }
  for (const scale of [100, 1_000, 10_000]) {
    const byDay = (await measure(scale, false, ['conversations'])).get('conversations')!;
    const byTopic = (await measure(scale, true, ['conversations'])).get('conversations')!;
    results.push({
      scenario: 'stream-costs',
      metric: `conversations at ${scale}/day: by day vs by topic`,
      value: byTopic / byDay,
      unit: 'x calls',
      note: `${(byDay / DAYS).toFixed(1)} vs ${(byTopic / DAYS).toFixed(1)} calls per brand per day`,
    });
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const result of await run())
    console.log(`${result.metric}: ${result.value.toFixed(2)} ${result.unit} (${result.note ?? ''})`);
}
