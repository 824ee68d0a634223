import type { ApiClient } from '../api/client.js';
import { type ApiError, AuthError, NotFoundError, TransientError, refusesKey } from '../api/errors.js';
import type { ApiConfig } from '../config/schema.js';
import { KEY_SETTING } from '../config/api-settings.js';
import { endpointReads } from './endpoint-reads.js';

/** Attempts of a probe that meets transient failures: enough to ride out a blip, few enough to start soon. */
const PROBE_MAX_ATTEMPTS = 3;
/** The longest wait for one probe's answer: a competitors list that takes longer is an API the run will find slow anyway. */
const PROBE_TIMEOUT_MS = 10_000;

/** The API settings the brand probes are asked with: few attempts, each waited for 10 s at most, so a silent API is told soon. */
export function probeApiConfig(api: ApiConfig): ApiConfig {
  return {
    ...api,
    maxAttempts: Math.min(api.maxAttempts, PROBE_MAX_ATTEMPTS),
    headersTimeoutMs: Math.min(api.headersTimeoutMs, PROBE_TIMEOUT_MS),
    bodyTimeoutMs: Math.min(api.bodyTimeoutMs, PROBE_TIMEOUT_MS),
    requestTimeoutMs: Math.min(api.requestTimeoutMs, PROBE_TIMEOUT_MS),
  };
}

/**
 * Why a probe's failure says the URL is not the API's base rather than anything of a brand: a 404 for the brand's
 * competitors list, or a TLS handshake an http:// server cannot make. Undefined for any other failure.
 */
export function wrongUrlReason(error: ApiError): string | undefined {
  if (error instanceof NotFoundError) return `the API has no ${error.endpoint} at this URL (HTTP 404)`;
  // A proxy's login page or another service answering 200 in the API's place: every request meets it.
  if (error instanceof TransientError && error.reason === 'other_format')
    return `the answer at this URL is not the API's: ${error.message.replace(/; check api\.url.*$/, '')}`;
  const tls = /ERR_SSL_[A-Z_]+|EPROTO/.exec(error.message)?.[0];
  if (tls || /SSL|TLS/i.test(error.message))
    return `the TLS handshake failed (${tls ?? 'no TLS answer'}): is it an http:// server?`;
  return undefined;
}

/**
 * Asks about the key and a brand by its competitors list (no query parameter: `api.params` cannot spoil it). A 403
 * naming neither asks the content analyses: one refused is the plan's (`listRefused`), two are the key's (thrown).
 */
export async function probeBrandAccess(client: ApiClient, brandId: number): Promise<{ listRefused?: AuthError }> {
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
export function answerOf(error: ApiError): string {
  return `HTTP ${error.status ?? '?'}${error.apiCode ? ` ${error.apiCode}` : ''}`;
}

/** The answer and its request id, as a message that stops a command shows them: `HTTP 403 forbidden, request 9f3c...`. */
export function answerWithRequest(error: ApiError): string {
  return `${answerOf(error)}${error.requestId ? `, request ${error.requestId}` : ''}`;
}

/** A refused key stops sync, plan, apply and verify alike; `undone` follows the answer, e.g. `; nothing was written`. */
export function refusedKeyMessage(answer: string, undone: string): string {
  return `the API refused the key (${answer})${undone}. Check ${KEY_SETTING}, then run \`bvsync doctor\``;
}
