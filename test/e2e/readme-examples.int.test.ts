import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/days.js';
import { DEFAULT_STREAM_NAMES } from '../../src/streams/stream-names.js';
import { cliEnv, engineFixture, runInProcess, type EngineFixture } from '../support/engine.js';
import { deletePrefix, TEST_REDIS_URL } from '../support/redis.js';
import { Redis } from 'ioredis';

/**
 * Every command example of README.md and docs/*.md, run as written. Each fenced `sh` block is one terminal session
 * (one bash process, lines in order, so `export`, `echo > file`, `cmd &` and `kill %1` work as they do for a user),
 * in a fresh folder holding the repository's `sql/` and `docs/`, with the environment a user would have set:
 * BVSYNC_DB on a demo-like file (every stream, a week, brands 1 and 2) and BVSYNC_API_URL/KEY/BRANDS on a simulator.
 * The `-- Run:` lines of sql/queries/ are examples too, run with their parameters and without.
 *
 * A line runs unless SKIPPED names it with the reason, so a new example either runs or is listed here; a listed
 * line no longer in the docs fails too. A line must exit 0, or the code its comment documents (`# exits 1`), and
 * print something (or fill the file it redirects to). `npx bvsync` runs this checkout's bin/bvsync.js.
 */

const REPO = join(import.meta.dirname, '..', '..');
const TODAY = '2026-11-20';

/** Lines that cannot run here, by their exact text (trimmed), with why. */
const SKIPPED: Record<string, string> = {
  'npm ci && npx bvsync demo     # set up, start the API simulator, backfill into a DuckDB file, show what was loaded':
    'npm ci would reinstall node_modules under the running suite; `bvsync demo` is run by test/e2e/demo.int.test.ts',
  'npm test                      # the tests (needs a Redis at 127.0.0.1:6379, or REDIS_URL)':
    'the whole suite, which runs this test',
  'npx bvsync dashboard                                       # the queues in Bull Board at http://127.0.0.1:3000/ (Ctrl-C ends it)':
    'long-running server on a fixed port; test/ops/dashboard.int.test.ts serves it',
  // docs/configuration.md: a real API with a placeholder key
  'export BVSYNC_API_KEY=...          # keep the key out of files; it is never logged, stored or put in an error':
    'a placeholder key of a real API',
  'export BVSYNC_BRANDS=7,12          # the API has no endpoint that lists brands': 'brands of a real API',
  'npx bvsync doctor                  # checks all of the below; exits 1 if anything is wrong':
    'needs the real API of the lines above; doctor runs against the simulator in the tutorial and the parameter-names session',
  'npx prism mock -d docs/openapi.yaml     # random answers that fit the document, at http://127.0.0.1:4010':
    'long-running mock server on a fixed port; test/fuzz/prism-backfill.int.test.ts runs Prism',
  "curl -H 'X-API-Key: any' 'http://127.0.0.1:4010/customer/v1/brands/1/conversations?page=1&page_size=5'":
    'needs the Prism mock above',
  "curl -H 'X-API-Key: any' -H 'Prefer: seed=42' 'http://127.0.0.1:4010/customer/v1/brands/1/competitors'   # the same answer each time":
    'needs the Prism mock above',
  // docs/operations.md
  'npx bvsync worker --metrics-port 9464     # fetches slices; loads DuckDB while it holds the writer lease':
    'long-running; test/e2e/processes.int.test.ts runs `bvsync worker`',
  "npx bvsync scheduler                      # enqueues a run on each cron slot of the config's `schedules`":
    'long-running; test/e2e/scheduler-process.int.test.ts runs `bvsync scheduler`',
  'npx bvsync dashboard --port 3000          # Bull Board on http://127.0.0.1:3000/':
    'long-running server on a fixed port; test/ops/dashboard.int.test.ts serves it',
  'docker compose logs worker --no-log-prefix | jq -c \'select(.slice == "2026-11-19" and .brand == 7)\'':
    'docker (test/ops/containers.int.test.ts checks the compose file)',
  'cp backup/bv.duckdb data/bv.duckdb && cp data/bv.duckdb data/bv.work.duckdb':
    'needs a backup of a warehouse; test/e2e/operator-mistakes.int.test.ts refuses a copied file without its working file',
  "BVSYNC_DB=data/bv.duckdb npx bvsync adopt-warehouse   # the prefix's slices are in data/bv.work.duckdb from now on":
    "changes which file the tour's prefix loads; test/e2e/warehouse-identity.int.test.ts runs it",
  'docker compose --profile demo up -d --build     # against the bundled API simulator: no key needed': 'docker',
  'docker compose up -d --build': 'docker',
  'open http://127.0.0.1:3000/                     # the dashboard': 'a browser, and the compose stack',
  'docker compose exec worker node bin/bvsync.js backfill --from 2026-10-01 --enqueue-only': 'docker',
  'docker compose exec worker node bin/bvsync.js status': 'docker',
  'docker compose exec worker node bin/bvsync.js report --out /data/report.html && docker compose cp worker:/data/report.html .':
    'docker',
  'kubectl create secret generic bvsync-secrets -n bvsync --from-file=api-key=./api-key --from-file=redis-url=./redis-url':
    'a Kubernetes cluster; test/deploy/kubernetes.test.ts validates the manifests that read this Secret',
  'kubectl apply -k bvsync-prod':
    'a Kubernetes cluster and an overlay of your own; test/deploy/kubernetes.test.ts validates the base and renders the overlay',
  'kubectl exec -n bvsync statefulset/bvsync-writer -- node bin/bvsync.js status':
    'a Kubernetes cluster running the base',
  // docs/simulator.md
  'npx bvsync simulate --port 4010 --seed 1 --brands 3 --days 30 --scale 100':
    'runs in the foreground until Ctrl-C; the tutorial and the parameter-names session start it in the background',
  "curl -H 'X-API-Key: bvk_sim_local_key' 'http://127.0.0.1:4010/customer/v1/brands/1/conversations?start_date=2026-11-20&page_size=5'":
    'needs the foreground simulator above',
  // docs/syncing.md: the reference block, against a real API and with placeholders
  'export BVSYNC_API_URL=https://api.example.com BVSYNC_API_KEY=... BVSYNC_BRANDS=7,12 BVSYNC_DB=data/bvsync.duckdb':
    'a real API',
  'npx bvsync doctor                                   # config, Redis, API, brand access, parameter names':
    'needs the real API above; the tutorial runs doctor',
  'npx bvsync backfill --from 2026-09-01 --to 2026-11-20 [--brand 7] [--streams conversations,visibility]':
    'the real API, and [optional] placeholders; the tutorial runs backfill',
  'npx bvsync backfill --from 2026-09-01 --to 2026-11-20 --skip-complete   # only the slices not complete in the file':
    'the real API; the tutorial runs backfill --skip-complete',
  "npx bvsync sync                                     # incremental: since each stream's last complete day + lookback":
    'the real API; the tutorial runs sync',
  'npx bvsync status [--json]                          # unfinished and last runs, queues, freshness, failed slices':
    '[optional] placeholder; the tutorial runs status',
  'npx bvsync cancel RUN                               # drop an unfinished run (its id from status): queued jobs go':
    'RUN is a placeholder for an unfinished run; test/e2e/one-run-per-window.int.test.ts cancels one',
  // docs/tables.md
  "duckdb -readonly bvsync.duckdb                          # DuckDB's CLI":
    'the DuckDB CLI is not installed here, and it is interactive',
  "python -c \"import duckdb; db = duckdb.connect('bvsync.duckdb', read_only=True); print(db.sql('FROM v_share_of_voice_daily LIMIT 5'))\"":
    'the duckdb Python package is not installed here',
};

interface Example {
  /** Where it is written: a file and the block's first line. */
  source: string;
  lines: string[];
}

/** The fenced `sh` blocks of a Markdown file, as lines (blank lines and comment-only lines left out). */
function shBlocks(file: string): Example[] {
  const text = readFileSync(join(REPO, file), 'utf8');
  const blocks: Example[] = [];
  const fence = /^```sh\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    const line = text.slice(0, match.index).split('\n').length;
    const lines = match[1]!
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    blocks.push({ source: `${file}:${line}`, lines });
  }
  return blocks;
}

/** The `-- Run: npx bvsync ...` line of each example query, as written and without its `--param`s. */
function queryRunLines(): Example[] {
  const dir = join(REPO, 'sql', 'queries');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => {
      const line = /^-- Run: (npx bvsync .+)$/m.exec(readFileSync(join(dir, name), 'utf8'))?.[1]?.trim();
      if (!line) throw new Error(`sql/queries/${name} has no "-- Run: npx bvsync ..." line`);
      const bare = line.replace(/\s+--param\s+\S+/g, '');
      return { source: `sql/queries/${name}`, lines: bare === line ? [line] : [line, bare] };
    });
}

const docs = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const examples = [...docs.flatMap(shBlocks), ...queryRunLines()];

interface LineResult {
  line: string;
  code: number;
  output: string;
}

/** A PATH entry whose `npx bvsync` is this checkout's bin (exec'd, so `cmd &` + `kill %1` reach the node process). */
function fakeNpx(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const realNpx =
    (process.env.PATH ?? '')
      .split(':')
      .map((d) => join(d, 'npx'))
      .find((p) => existsSync(p)) ?? 'npx';
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh\nif [ "$1" = bvsync ]; then shift; exec "${process.execPath}" "${join(REPO, 'bin', 'bvsync.js')}" "$@"; fi\nexec "${realNpx}" "$@"\n`,
  );
  chmodSync(join(bin, 'npx'), 0o755);
  return bin;
}

/**
 * Runs the lines of one block in one bash session in `cwd`; marks each line's start and exit on stdout and stderr so
 * each line's output and code can be told apart. After a line that starts something in the background (`&`), waits
 * for its port and its start-up message, as a user does.
 */
function runSession(lines: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<LineResult[]> {
  const script = ["trap 'kill $(jobs -p) 2>/dev/null' EXIT"];
  lines.forEach((line, i) => {
    script.push(`echo "@@${i}>"; echo "@@${i}>" >&2`);
    if (line.replace(/\s+#.*$/, '').endsWith('&')) {
      const port = /--port\s+(\d+)/.exec(line)?.[1] ?? '4010';
      // The port opens a moment before the start-up message is written (the listen callback runs after the socket
      // listens): on a busy box the probe can win that race, so the message gets a second to arrive.
      script.push(
        line,
        `for n in $(seq 150); do (echo > /dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.2; done; sleep 1`,
        `echo "@@${i}=0"; echo "@@${i}<" >&2`,
      );
    } else {
      script.push(line, `echo "@@${i}=$?"; echo "@@${i}<" >&2`);
    }
  });
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script.join('\n')], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('error', reject);
    child.on('close', () => {
      resolve(
        lines.map((line, i) => {
          const out = new RegExp(`@@${i}>\\n([\\s\\S]*?)@@${i}=(\\d+)`).exec(stdout);
          const err = new RegExp(`@@${i}>\\n([\\s\\S]*?)@@${i}<`).exec(stderr);
          return { line, code: out ? Number(out[2]) : -1, output: `${out?.[1] ?? ''}${err?.[1] ?? ''}` };
        }),
      );
    });
  });
}

/** Whether nothing listens on a port of 127.0.0.1, so a session that starts the simulator there reaches its own. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

let fx: EngineFixture;
let work: string;
/** A Redis database of its own: README's tour runs with the default `bvsync` prefix as a user does, the tutorial `tour`. */
const redisUrl = (() => {
  const url = new URL(TEST_REDIS_URL);
  url.pathname = '/11';
  return url.toString();
})();

async function clearTourKeys(): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
  try {
    for (const prefix of ['bvsync', 'tour']) await deletePrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

beforeAll(async () => {
  fx = await engineFixture('readme-examples', {
    sim: { brands: 2, days: 8, scale: 20, today: TODAY },
    config: { sync: { fetchConcurrency: 8 } },
  });
  work = fx.dir;
  await clearTourKeys();
  const progress = await runInProcess(fx, {
    kind: 'backfill',
    today: TODAY,
    from: addDays(TODAY, -6),
    to: TODAY,
    streams: [...DEFAULT_STREAM_NAMES],
  });
  expect(progress.meta.status).toBe('complete');
}, 240_000);
afterAll(async () => {
  await clearTourKeys().catch(() => undefined);
  await fx?.cleanup();
});

describe('the command examples of README.md and docs/', () => {
  it('are found: the tutorial, the analyst commands and the example queries', () => {
    const all = examples.flatMap((example) => example.lines);
    expect(
      all.filter(
        (line) => /npx bvsync (sql|report|status|doctor|backfill|sync|export)\b/.test(line) && !(line in SKIPPED),
      ).length,
    ).toBeGreaterThanOrEqual(15);
    expect(examples.filter((example) => example.source.startsWith('sql/queries/')).length).toBeGreaterThanOrEqual(6);
  });

  it('skip only lines still in the docs', () => {
    const all = new Set(examples.flatMap((example) => example.lines));
    expect(Object.keys(SKIPPED).filter((line) => !all.has(line))).toEqual([]);
  });

  it.each(examples.map((example) => [example.source, example] as const))(
    'run as written: %s',
    async (_source, example) => {
      const lines = example.lines.filter((line) => !(line in SKIPPED));
      if (lines.length === 0) return;
      // Each block is a session of its own: a Redis prefix records one warehouse, and blocks name different files.
      await clearTourKeys();
      const cwd = join(work, example.source.replace(/[^A-Za-z0-9]+/g, '-'));
      mkdirSync(cwd, { recursive: true });
      for (const dir of ['sql', 'docs', 'examples'])
        if (!existsSync(join(cwd, dir))) symlinkSync(join(REPO, dir), join(cwd, dir));
      const env: NodeJS.ProcessEnv = {
        ...cliEnv(fx),
        REDIS_URL: redisUrl,
        PATH: `${fakeNpx(work)}:${process.env.PATH ?? ''}`,
      };
      delete env.BVSYNC_CONFIG;
      delete env.BVSYNC_LOG_LEVEL;
      for (const line of lines.filter((l) => l.replace(/\s+#.*$/, '').endsWith('&'))) {
        const port = Number(/--port\s+(\d+)/.exec(line)?.[1] ?? 4010);
        if (!(await portIsFree(port)))
          throw new Error(
            `${example.source}: port ${port} is in use, and "${line}" starts the simulator on it; stop what listens there`,
          );
      }
      const results = await runSession(lines, cwd, env);
      for (const result of results) {
        const expected = Number(/#\s*exits (\d+)/.exec(result.line)?.[1] ?? 0);
        expect(result.code, `${example.source}: ${result.line}\n${result.output.slice(-3000)}`).toBe(expected);
        if (!result.line.includes('npx bvsync')) continue;
        const target = /\bnpx bvsync\b[^|#]*?>\s*(\S+)/.exec(result.line)?.[1];
        if (target) expect(statSync(join(cwd, target)).size, `${result.line}: ${target} is empty`).toBeGreaterThan(0);
        else expect(result.output.trim(), `${result.line} printed nothing`).not.toBe('');
        const out = /--out\s+(\S+)/.exec(result.line)?.[1];
        if (out && expected === 0) expect(existsSync(join(cwd, out)), `${result.line}: ${out} not written`).toBe(true);
      }
    },
    300_000,
  );
});
