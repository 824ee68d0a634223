import type { NotifyConfig, NotifyEvent, WebhookConfig } from '../config/schema.js';
import { redactSecrets, registerSecret, type Logger } from '../log.js';
import { deliver } from './deliver.js';
import { noticeOfFailure } from './failure-notice.js';
import type { Notice } from './notice.js';
import { jsonPayload, slackPayload, type NoticeSource } from './payload.js';
import { webhookUrl } from './webhook-url.js';
import { within } from '../within.js';

/** Wait before a webhook's second try; doubled after each, with full jitter. */
const RETRY_BASE_MS = 500;

interface Webhook extends Pick<WebhookConfig, 'events' | 'format'> {
  /** 1-based, as logs name it: the URL is a secret. */
  number: number;
  url: string;
}

export interface NotifierOptions {
  config: { notify: NotifyConfig; redisPrefix: string; db: string };
  log: Logger;
  /** Wait before a second try (ms); default 500. Tests shorten it. */
  retryBaseMs?: number;
}

/** How long a machine fault once told is not told again by the same process. */
const FAULT_TOLD_FOR_MS = 10 * 60_000;

/**
 * Every notice goes through `notify` to the webhooks asking for its event, retried within `notify.deliverySeconds`;
 * it never throws, so a down webhook never fails a run (test/notify/notifier.int.test.ts). Logs name no webhook URL.
 */
export class Notifier {
  private readonly webhooks: Webhook[];
  private readonly pending = new Set<Promise<void>>();
  private stopped = new AbortController();
  private readonly source: NoticeSource;
  private readonly deliveryMs: number;
  /** When each machine fault (component and code) was last told, so one fault met twice in a process is told once. */
  private readonly faultsTold = new Map<string, number>();

  constructor(private readonly options: NotifierOptions) {
    const { config, log } = options;
    this.webhooks = config.notify.webhooks.map((hook, index) => {
      const url = webhookUrl(hook, index, log);
      // A URL that reached a message anyway (an error quoting it) is masked in every log line.
      registerSecret(url);
      return { number: index + 1, url, events: hook.events, format: hook.format };
    });
    this.source = { prefix: config.redisPrefix, db: config.db };
    this.deliveryMs = config.notify.deliverySeconds * 1000;
  }

  /** Whether any webhook asked for the event: callers skip the work of building a notice nobody reads. */
  wants(event: NotifyEvent): boolean {
    return this.webhooks.some((hook) => hook.events.includes(event));
  }

  /** Sends the notice to every webhook that asked for its event; resolves when each is delivered or given up. Never rejects. */
  notify(notice: Notice): Promise<void> {
    const hooks = this.webhooks.filter((hook) => hook.events.includes(notice.event));
    if (hooks.length === 0 || this.toldRecently(notice)) return Promise.resolve();
    // A timer of its own: inside AbortSignal.any, nothing holds an AbortSignal.timeout, and a garbage collection drops
    // it before it fires (test/notify/notifier.int.test.ts, "is bounded across garbage collections").
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.deliveryMs).unref();
    const bound = AbortSignal.any([this.stopped.signal, deadline.signal]);
    const sending = Promise.all(hooks.map((hook) => this.send(hook, notice, bound))).then(() => undefined);
    this.pending.add(sending);
    void sending.finally(() => {
      clearTimeout(timer);
      this.pending.delete(sending);
    });
    return sending;
  }

  /**
   * A machine fault already told within FAULT_TOLD_FOR_MS: the writer that met a full disk and the command that ends on
   * it tell of one fault (test/engine/disk-full.int.test.ts). A fault that comes back later is told again.
   */
  private toldRecently(notice: Notice): boolean {
    if (notice.event !== 'machine_fault') return false;
    const key = `${notice.component}\u0000${notice.code}`;
    const told = this.faultsTold.get(key);
    const now = performance.now();
    if (told !== undefined && now - told < FAULT_TOLD_FOR_MS) return true;
    this.faultsTold.set(key, now);
    return false;
  }

  /** Tells of a command's failure when it is one people are told of (a refused key, a machine fault); never rejects. */
  async failed(error: unknown): Promise<void> {
    const notice = noticeOfFailure(error);
    if (notice) await this.notify(notice);
  }

  /**
   * Waits for the notices still being sent, at most `notify.deliverySeconds`, then gives them up: a command calls it
   * before it exits, a worker when it stops.
   */
  async settle(): Promise<void> {
    if (this.pending.size === 0) return;
    await within(Promise.all(this.pending), this.deliveryMs);
    // Gives up what is left; a notice sent after (a command's failure, found after its worker stopped) starts afresh.
    this.stopped.abort();
    this.stopped = new AbortController();
  }

  private async send(hook: Webhook, notice: Notice, signal: AbortSignal): Promise<void> {
    const { log } = this.options;
    const payload = hook.format === 'slack' ? slackPayload(notice, this.source) : jsonPayload(notice, this.source);
    // A secret in an error message (the API key an API echoed) never reaches a webhook either.
    const body = redactSecrets(JSON.stringify(payload));
    try {
      const outcome = await deliver(hook.url, body, {
        signal,
        retryBaseMs: this.options.retryBaseMs ?? RETRY_BASE_MS,
        onRetry: (attempt, reason) =>
          log.debug(
            { webhook: hook.number, event: notice.event, attempt, reason },
            'webhook not reached; trying again',
          ),
      });
      if (outcome.delivered)
        log.info({ webhook: hook.number, event: notice.event, attempts: outcome.attempts }, 'notified');
      else
        log.warn(
          { webhook: hook.number, event: notice.event, attempts: outcome.attempts, reason: outcome.reason },
          'could not notify the webhook; the run is not affected',
        );
    } catch (error) {
      log.warn(
        { webhook: hook.number, event: notice.event, err: (error as Error).name },
        'could not notify the webhook; the run is not affected',
      );
    }
  }
}

/** A notifier of the config's webhooks, or undefined when there is none (nothing to build, nothing to wait for). */
export function notifierFor(config: NotifierOptions['config'], log: Logger): Notifier | undefined {
  return config.notify.webhooks.length ? new Notifier({ config, log }) : undefined;
}
