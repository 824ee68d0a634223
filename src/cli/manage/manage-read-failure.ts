import { AuthError, BrandAccessDeniedError, TransientError } from '../../api/errors.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';
import { UsageError } from '../fail.js';
import { answerWithRequest, refusedKeyMessage } from '../brand-access-probe.js';
import { URL_SETTING } from '../../config/api-settings.js';

/**
 * A failure of the reads that start `plan` and `apply`, with what to check: a refused key or brand is a setup error
 * (exit 2, docs/syncing.md "Exit codes"), an API that does not answer exit 1 as for `sync`; others pass as they are.
 */
export function explainReadFailure(error: unknown, brandId: number, source: string): unknown {
  if (error instanceof TransientError && (error.reason === 'network' || error.reason === 'timeout'))
    return new UsageError(
      `${error.message}; nothing was written. Check ${URL_SETTING} and the network, then run again`,
      EXIT_NOT_DONE,
    );
  if (error instanceof AuthError)
    return new UsageError(refusedKeyMessage(answerWithRequest(error), '; nothing was written'));
  if (error instanceof BrandAccessDeniedError)
    return new UsageError(
      `the API key has no access to brand ${brandId} (${answerWithRequest(error)}); nothing was written. ` +
        `Check the brand id in ${source}, and that the key may use that brand (the account's API key settings)`,
    );
  return error;
}
