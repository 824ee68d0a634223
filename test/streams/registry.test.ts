import { describe, expect, it } from 'vitest';
import { STREAMS, getStream, selectStreams } from '../../src/streams/registry.js';
import { STREAM_NAMES } from '../../src/streams/stream-names.js';

describe('the stream registry', () => {
  it('holds every stream of STREAM_NAMES, in that order', () => {
    expect([...STREAMS.keys()]).toEqual([...STREAM_NAMES]);
    expect(selectStreams(undefined).map((s) => s.name)).toEqual([...STREAM_NAMES]);
  });

  it('selects by name in plan order and refuses unknown names', () => {
    expect(selectStreams(['swot', 'visibility']).map((s) => s.name)).toEqual(['visibility', 'swot']);
    expect(getStream('citations').name).toBe('citations');
    expect(() => selectStreams(['visibility', 'nope'])).toThrow(/unknown stream "nope"/);
  });
});
