// The names live in the registry, the only list of streams; this module keeps the import path of the names alone.
export { DEFAULT_STREAM_NAMES, STREAM_NAMES, type StreamName } from './registry.js';
