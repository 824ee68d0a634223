import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import pino, { type Logger, type LoggerOptions } from 'pino';

const requireCommonJs = createRequire(import.meta.url);

export type { Logger };

/**
 * Values that must never be printed: the API key and anything else registered at start. Structured
 * fields are redacted by path below; this list also catches a secret that slipped into a message string.
 */
const secrets = new Set<string>();

export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 4) return;
  secrets.add(value);
  // As a URL or a form would carry it: an API echoing the key in a message may percent-encode it.
  for (const encoded of [encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, '+')])
    secrets.add(encoded);
}

export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[REDACTED]');
  return out;
}

const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'req.headers["x-api-key"]',
  'config.api.apiKey',
];

// Fields of the slice being worked on, for code shared by every job of a process (the API client) that logs through
// the process logger rather than the job's child logger.
const logContext = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs `work` with `fields` added to every line logged inside it that does not already carry them. */
export function withLogContext<T>(fields: Record<string, unknown>, work: () => T): T {
  return logContext.run(fields, work);
}

// While set, log lines go here instead of stderr: `sync`/`backfill` print them above their live progress line.
let logLineSink: ((text: string) => void) | null = null;

/**
 * Sends every log line of every logger to `sink` (formatted as they would be on stderr) until called with null. The
 * live progress line uses it to print log lines above itself (src/cli/live-line.ts).
 */
export function routeLogLines(sink: ((text: string) => void) | null): void {
  logLineSink = sink;
}

export interface LoggerSettings {
  /** pino level; default `info`, or `BVSYNC_LOG_LEVEL`. */
  level?: string;
  /** Pretty lines for people; default: when stderr is a terminal. */
  pretty?: boolean;
}

export function createLogger(settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    mixin(_object, _level, logger) {
      const fields = logContext.getStore();
      if (!fields) return {};
      // A child logger that already binds them (the job's own) would print every field twice.
      const bound = (logger as Logger).bindings();
      return Object.fromEntries(Object.entries(fields).filter(([name]) => !(name in bound)));
    },
    hooks: {
      // The last line of defence: a secret inside a free-text message or an error's message is masked too.
      logMethod(args, method) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg)) as Parameters<typeof method>,
        );
      },
    },
    formatters: {
      log(object) {
        return secrets.size === 0 ? object : (JSON.parse(redactSecrets(JSON.stringify(object))) as typeof object);
      },
    },
  };
  const usePretty = settings.pretty ?? process.stderr.isTTY === true;
  const prettyOptions = { ignore: 'pid,hostname', translateTime: 'HH:MM:ss.l' };
  // Required only for a terminal: importing pino-pretty costs some 80 ms of CPU (docs/performance.md).
  const pretty = usePretty ? (requireCommonJs('pino-pretty') as typeof import('pino-pretty')) : null;
  const stderr = pretty
    ? pretty({ sync: true, destination: 2, ...prettyOptions })
    : pino.destination({ dest: 2, sync: true });
  const format = pretty ? pretty.prettyFactory(prettyOptions) : (line: string) => line;
  const destination = {
    write(line: string) {
      if (logLineSink) logLineSink(format(line));
      else stderr.write(line);
    },
  };
  return pino(options, destination);
}

/** The process-wide logger; commands may replace its level with `--log-level`. */
export const log: Logger = createLogger();
