// The API client's surface for the rest of bvsync (streams, jobs, CLI).
export { createApiClient } from './client.js';
export type * from './client.js';
export * from './errors.js';
export {
  configuredRateBudget,
  UNLIMITED_RATE_BUDGET,
  RATE_HEADROOM,
  keyHash,
  type RateBudget,
} from './rate/rate-budget.js';
export type { Rejection } from './validate.js';
export type { ApiRequestEvent } from './transport.js';
export { KeyAnswers } from './key-answers.js';
export * from './schemas.js';
export type { AnyEndpoint } from './endpoint.js';
