import { AuthError, BrandAccessDeniedError, type ApiError } from '../api/errors.js';
import { UsageError } from './fail.js';

function answerOf(error: ApiError): string {
  return `HTTP ${error.status ?? '?'}${error.apiCode ? ` ${error.apiCode}` : ''}${error.requestId ? `, request ${error.requestId}` : ''}`;
}

/**
 * A refused key or a brand the key cannot use shows in the reads that start `plan` and `apply`, before any write: a
 * setup error (exit 2, docs/syncing.md "Exit codes") naming what to check, not a failed apply. Other errors pass.
 */
export function refusalAsUsage(error: unknown, brandId: number, source: string): unknown {
  if (error instanceof AuthError) {
    return new UsageError(
      `the API refused the key (${answerOf(error)}); nothing was written. Check BVSYNC_API_KEY (config "api.apiKey"), then run \`bvsync doctor\``,
    );
  }
  if (error instanceof BrandAccessDeniedError) {
    return new UsageError(
      `the API key has no access to brand ${brandId} (${answerOf(error)}); nothing was written. ` +
        `Check the brand id in ${source}, and that the key may use that brand (the account's API key settings)`,
    );
  }
  return error;
}
