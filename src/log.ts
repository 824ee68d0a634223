import pino, { type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/**
 * Values that must never be printed: the API key and anything else registered at start. Structured
 * fields are redacted by path below; this list also catches a secret that slipped into a message string.
 */
const secrets = new Set<string>();

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
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

export interface LoggerSettings {
  /** pino level; default `info`, or `BVSYNC_LOG_LEVEL`. */
  level?: string;
  /** Pretty lines for people; default: when stderr is a terminal. */
  pretty?: boolean;
}

export function createLogger(settings: LoggerSettings = {}): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? process.env.BVSYNC_LOG_LEVEL ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
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
  const destination = usePretty
    ? pretty({ sync: true, destination: 2, ignore: 'pid,hostname', translateTime: 'HH:MM:ss.l' })
    : pino.destination({ dest: 2, sync: true });
  return pino(options, destination);
}

/** The process-wide logger; commands may replace its level with `--log-level`. */
export const log: Logger = createLogger();
