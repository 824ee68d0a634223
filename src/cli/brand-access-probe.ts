import type { ApiClient } from '../api/client.js';
import { AuthError, refusesKey } from '../api/errors.js';
import { endpointReads } from './endpoint-reads.js';

/** What one brand's probe learnt: whether it was answered by the competitors list, or only by the content analyses. */
export interface BrandAccess {
  /** The refusal of the competitors list, when the content analyses answered in its place. */
  listRefused?: AuthError;
}

/**
 * Asks the API about the key and one brand, for the preflight and doctor: the brand's competitors list, which takes
 * no query parameter, so a wrong `api.params` mapping cannot make a readable brand look unreadable. The spec shows no
 * status for a wrong key, and a 403 that names neither the key nor the brand (`forbidden`, or no code) may be that one
 * endpoint refused by the account's plan; so then the content analyses are asked (no filter either): one endpoint
 * refused is the plan's, two are the key's. Throws the answer that settles it: an AuthError when the key is refused,
 * a BrandAccessDeniedError, or any other ApiError of the last request.
 */
export async function probeBrandAccess(client: ApiClient, brandId: number): Promise<BrandAccess> {
  const reads = endpointReads(client);
  try {
    await reads.competitors(brandId);
    return {};
  } catch (error) {
    if (!(error instanceof AuthError) || refusesKey(error)) throw error;
    await reads.contentAnalyses(brandId).next();
    return { listRefused: error };
  }
}

/** An API refusal as a log or a check line shows it: `HTTP 403 forbidden`. */
export function answerOf(error: AuthError): string {
  return `HTTP ${error.status ?? '?'}${error.apiCode ? ` ${error.apiCode}` : ''}`;
}
