import { UsageError } from '../cli/fail.js';
import { competitors } from './competitors.js';
import { conversations } from './conversations.js';
import type { StreamDefinition } from './stream.js';
import { STREAM_NAMES, isStreamName, type StreamName } from './stream-names.js';

/** Every stream bvsync syncs, by name. */
export const STREAMS: ReadonlyMap<StreamName, StreamDefinition> = new Map(
  [conversations, competitors].map((stream) => [stream.name, stream]),
);

export function getStream(name: string): StreamDefinition {
  const stream = isStreamName(name) ? STREAMS.get(name) : undefined;
  if (!stream) throw new UsageError(`unknown stream "${name}"; streams: ${[...STREAMS.keys()].join(', ')}`);
  return stream;
}

/** Parses `--streams a,b` (or the config's list) into declarations, in the registry's order. */
export function selectStreams(names: readonly string[] | undefined): StreamDefinition[] {
  if (!names || names.length === 0) return STREAM_NAMES.flatMap((name) => STREAMS.get(name) ?? []);
  const unknown = names.filter((name) => !isStreamName(name) || !STREAMS.has(name));
  if (unknown.length) {
    throw new UsageError(`unknown stream${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; streams: ${[...STREAMS.keys()].join(', ')}`);
  }
  return STREAM_NAMES.filter((name) => names.includes(name)).map((name) => STREAMS.get(name)!);
}
