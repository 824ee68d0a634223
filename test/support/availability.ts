import type { Redis } from 'ioredis';
import { KeyAnswers } from '../../src/api/index.js';
import { Availability } from '../../src/engine/fetch/availability.js';
import { parseConfig, type SyncConfig } from '../../src/configuration.js';

export interface TestAvailabilityOptions {
  /** The key whose refusals are remembered; default a test key. */
  apiKey?: string;
  /** What the process heard on its key; default nothing yet: no answer, no 429. */
  heard?: KeyAnswers;
  /** Default the configuration's defaults (an outage waited out for `outageToleranceMinutes`). */
  sync?: Pick<SyncConfig, 'outageToleranceMinutes'>;
}

/** The real availability under `prefix`, inert until a test records an outage or a refusal or feeds `heard`. */
export function testAvailability(redis: Redis, prefix: string, options: TestAvailabilityOptions = {}): Availability {
  return new Availability(
    redis,
    prefix,
    options.apiKey ?? 'bvk_unit_test_key_0001',
    options.heard ?? new KeyAnswers(),
    options.sync ?? parseConfig({}).sync,
  );
}
