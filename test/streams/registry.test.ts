import { describe, expect, it } from 'vitest';
import { STREAMS, getStream, selectStreams } from '../../src/streams/registry.js';
import { STREAM_NAMES } from '../../src/streams/stream-names.js';

describe('the stream registry', () => {
  it('holds every stream of STREAM_NAMES, in that order', () => {
    expect([...STREAMS.keys()]).toEqual([...STREAM_NAMES]);
    expect(selectStreams(undefined).map((s) => s.name)).toEqual(
      STREAM_NAMES.filter((name) => name !== 'product_ranking_by_engine'),
    );
  });

  it('leaves the opt-in streams out unless they are named', () => {
    expect(selectStreams([]).map((s) => s.name)).not.toContain('product_ranking_by_engine');
    expect(selectStreams(undefined).map((s) => s.name)).toContain('visibility_by_engine');
    expect(selectStreams(['product_ranking_by_engine']).map((s) => s.name)).toEqual(['product_ranking_by_engine']);
  });

  it('selects by name in plan order and refuses unknown names', () => {
    expect(selectStreams(['swot', 'visibility']).map((s) => s.name)).toEqual(['visibility', 'swot']);
    expect(getStream('citations').name).toBe('citations');
    expect(() => selectStreams(['visibility', 'nope'])).toThrow(/unknown stream "nope"/);
  });
});
