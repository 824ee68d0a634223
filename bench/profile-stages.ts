/**
 * Not a scenario: where a backfill's main-thread CPU goes, by stage of a record's way from the API to DuckDB.
 * `node bin/run-ts.js bench/profile-stages.ts FILE.cpuprofile [records]` reads a profile written by
 * `bench/profile-backfill.ts` and charges each sample to the innermost frame of bvsync's own code on its stack (so
 * JSON.parse called by the transport counts as HTTP, gzip called by the codec as the codec, a Redis command sent by the
 * rate budget as the rate budget); a sample with none (a socket's data callback, module loading) goes by the library
 * it is in. It prints each stage's milliseconds, share of the busy time and, given the run's record count,
 * microseconds per record. With `PROFILE_STAGE='<stage>'` it also lists the frames that stage's samples ended in.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Stages of bvsync's own code; the first whose test matches the innermost own frame claims the sample. */
const STAGES: { stage: string; test: (frame: CallFrame) => boolean }[] = [
  { stage: 'rate budget (Redis per request)', test: ({ url }) => /rate-(budget|gate|state-store)\.ts/.test(url) },
  { stage: 'chunk codec (JSON + gzip)', test: ({ url }) => /chunk-codec\.ts/.test(url) },
  { stage: 'chunks to and from Redis', test: ({ url }) => /chunk-store\.ts/.test(url) },
  {
    stage: 'HTTP and JSON.parse of pages',
    test: ({ url, functionName }) =>
      /api\/transport\.ts|undici/.test(url) || (/api\/client\.ts/.test(url) && functionName !== 'getEnvelope'),
  },
  {
    stage: 'validation (zod, _extra split)',
    test: ({ url, functionName }) =>
      /zod|api\/validate\.ts|streams\/extra\.ts/.test(url) || functionName === 'getEnvelope',
  },
  { stage: 'paging', test: ({ url }) => /api\/paginate\.ts/.test(url) },
  { stage: 'row mapping (streams)', test: ({ url }) => /src\/streams\/(?!run-slice)[a-z-]+\.ts/.test(url) },
  {
    stage: 'read checks (ids, fingerprints, scope)',
    test: ({ url }) => /run-slice\.ts|warehouse\/scope\.ts|api\/value-fingerprint\.ts/.test(url),
  },
  { stage: 'screen (cells, keys)', test: ({ url }) => /row-screen\.ts/.test(url) },
  {
    stage: 'stage into DuckDB (converters, appender)',
    test: ({ url }) => /slice-loader\.ts|cell-converters\.ts|@duckdb/.test(url),
  },
  {
    stage: 'load job (BullMQ, bookkeeping)',
    test: ({ url }) =>
      /writer\/(load-processor|load-context|plan-job|commit-job|finalize-job|waiting-commits)\.ts|warehouse\.ts|bookkeeping\.ts|publish/.test(
        url,
      ),
  },
];

/** Where a sample without any of bvsync's own frames on its stack goes, by the library of its innermost frame. */
const LIBRARIES: { stage: string; test: (frame: CallFrame) => boolean }[] = [
  { stage: 'Redis client and queues (callbacks)', test: ({ url }) => /ioredis|bullmq|redis-parser/.test(url) },
  { stage: 'HTTP and JSON.parse of pages', test: ({ url }) => /undici/.test(url) },
  { stage: 'stage into DuckDB (converters, appender)', test: ({ url }) => /@duckdb/.test(url) },
  { stage: 'start-up (loading modules)', test: ({ url }) => /^node:internal\/modules|tsx|esbuild/.test(url) },
];

const OWN_CODE = /\/(src|bench)\/[^/].*\.ts$/;

const [file, recordsArgument] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bin/run-ts.js bench/profile-stages.ts FILE.cpuprofile [records]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** The stage of the innermost own frame at or above `id`; undefined when the stack has none. */
const ownStageOfNode = new Map<number, string | undefined>();
function ownStageOf(id: number | undefined): string | undefined {
  if (id === undefined) return undefined;
  if (ownStageOfNode.has(id)) return ownStageOfNode.get(id);
  const frame = byId.get(id)!.callFrame;
  const stage = OWN_CODE.test(frame.url)
    ? (STAGES.find(({ test }) => test(frame))?.stage ?? 'other of bvsync')
    : ownStageOf(parentOf.get(id));
  ownStageOfNode.set(id, stage);
  return stage;
}

function stageOf(id: number): string {
  const frame = byId.get(id)!.callFrame;
  if (frame.functionName === '(garbage collector)') return 'garbage collection';
  if (frame.functionName === '(idle)' || frame.functionName === '(program)') return frame.functionName.slice(1, -1);
  return ownStageOf(id) ?? LIBRARIES.find(({ test }) => test(frame))?.stage ?? 'other (native, node internals)';
}

const totals = new Map<string, number>();
let busyUs = 0;
for (let index = 0; index < profile.samples.length; index++) {
  const stage = stageOf(profile.samples[index]!);
  const us = profile.timeDeltas[index] ?? 0;
  totals.set(stage, (totals.get(stage) ?? 0) + us);
  if (stage !== 'idle') busyUs += us;
}
const records = Number(recordsArgument) || undefined;
const rows = [...totals].filter(([stage]) => stage !== 'idle').sort((a, b) => b[1] - a[1]);
const width = Math.max(...rows.map(([stage]) => stage.length));
process.stdout.write(
  `${'stage'.padEnd(width)}  ${'ms'.padStart(7)}  ${'share'.padStart(6)}${records ? '  us/record' : ''}\n`,
);
for (const [stage, us] of rows) {
  const perRecord = records ? `  ${(us / records).toFixed(1).padStart(9)}` : '';
  process.stdout.write(
    `${stage.padEnd(width)}  ${(us / 1000).toFixed(0).padStart(7)}  ${((100 * us) / busyUs).toFixed(1).padStart(5)}%${perRecord}\n`,
  );
}
const idle = totals.get('idle') ?? 0;
process.stdout.write(
  `busy ${(busyUs / 1000).toFixed(0)} ms${records ? ` (${(busyUs / records).toFixed(1)} us/record)` : ''}, idle ${(idle / 1000).toFixed(0)} ms\n`,
);
// Which frames one stage's time ends in, to see what to look at next.
if (process.env.PROFILE_STAGE) {
  const frames = new Map<string, number>();
  for (let index = 0; index < profile.samples.length; index++) {
    if (stageOf(profile.samples[index]!) !== process.env.PROFILE_STAGE) continue;
    const { functionName, url } = byId.get(profile.samples[index]!)!.callFrame;
    const key = `${functionName || '(anonymous)'} ${url}`;
    frames.set(key, (frames.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  for (const [key, us] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, 20))
    process.stdout.write(`${(us / 1000).toFixed(0).padStart(7)}  ${key}\n`);
}
