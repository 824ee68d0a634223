// The public surface for code that embeds bvsync; everything else is internal.
export { configSchema, type Config, type SyncConfig, loadConfig, parseConfig } from './configuration.js';
export type { ApiConfig } from './config/schema.js';
export { ConfigError } from './config/load.js';
export { STREAM_NAMES, type StreamName } from './streams/stream-names.js';
export { STREAMS, getStream, selectStreams } from './streams/registry.js';
export type { StreamDefinition, SlicePlan } from './streams/stream.js';
export {
  runToEnd as runSync,
  enqueueRun,
  type RunToEndOptions as RunSyncOptions,
  type RunProgress,
} from './engine/run/start-run.js';
export { WorkerHost, type WorkerHostOptions } from './engine/jobs/worker-host.js';
export { createApiClient, type ApiClient } from './api/index.js';
export { openWarehouse, Warehouse, type WarehouseOptions } from './warehouse/warehouse.js';
