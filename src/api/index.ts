// The API client's surface for the rest of bvsync (streams, jobs, CLI).
export { createApiClient } from './client.js';
export type * from './client.js';
export * from './errors.js';
export { parseRetryAfter, DEFAULT_RETRY_AFTER_MS, MAX_RETRY_AFTER_MS } from './retry-after.js';
export { MAX_PAGE_SIZE, paginate, type Page, type PagingInfo, type PagingSummary } from './paginate.js';
export {
  createMemoryRateBudget,
  configuredRateBudget,
  UNLIMITED_RATE_BUDGET,
  RATE_HEADROOM,
  keyHash,
  type RateBudget,
} from './rate-budget.js';
export { buildQuery, brandPath, formatDay, type QueryParams } from './query.js';
export { validateRecords, splitExtra, knownFields, describeZodIssues, type Rejection } from './validate.js';
export type { ApiRequestEvent } from './transport.js';
export { KeyAnswers } from './key-answers.js';
export * from './schemas.js';
export { defineEndpoint, type AnyEndpoint, type Endpoint } from './endpoint.js';
