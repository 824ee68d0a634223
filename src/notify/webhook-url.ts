import { readFileSync, statSync } from 'node:fs';
import type { WebhookConfig } from '../config/schema.js';
import { errnoOf, errorMessage } from '../format.js';
import type { Logger } from '../log.js';

/** A webhook's URL file that cannot be read or holds no URL; the message names the file and the webhook, never the URL. */
class WebhookUrlError extends Error {
  readonly code = 'config_invalid';
  constructor(index: number, path: string, reason: string) {
    super(
      `notify.webhooks[${index}].urlFile ${path}: ${reason}. Write the webhook's URL alone in that file (http:// or https://)`,
    );
    this.name = 'WebhookUrlError';
  }
}

/**
 * The URL of webhook `index` (0-based): `url`, or the first line of `urlFile`. A file others may read gets a warning:
 * the URL is the webhook's credential.
 */
export function webhookUrl(hook: WebhookConfig, index: number, log: Logger): string {
  if (hook.url !== undefined) return hook.url;
  const path = hook.urlFile!;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
    // Group and others' read bits: a secret mounted 0644 is readable by every user of the machine.
    if ((statSync(path).mode & 0o044) !== 0) {
      log.warn(
        { webhook: index + 1, file: path },
        'the webhook URL file is readable by other users; make it 0600 (chmod 600), or mount the secret with mode 0400',
      );
    }
  } catch (error) {
    throw new WebhookUrlError(index, path, `cannot be read (${errnoOf(error) ?? errorMessage(error)})`);
  }
  const url = text.trim();
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new WebhookUrlError(index, path, 'holds no http:// or https:// URL');
  return url;
}
