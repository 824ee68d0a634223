// The public surface for code that embeds bvsync; everything else is internal.
export { configSchema, type Config, type ApiConfig, type SyncConfig } from './config/schema.js';
export { loadConfig, parseConfig, ConfigError } from './config/load.js';
export { STREAM_NAMES, type StreamName } from './streams/stream-names.js';
export { openWarehouse, Warehouse, type WarehouseOptions } from './warehouse/warehouse.js';
