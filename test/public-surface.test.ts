import { describe, expect, it } from 'vitest';
import * as bvsync from '../src/index.js';

describe('the public surface', () => {
  it('offers what an embedding program needs: the config, runSync, the stream registry, the client and the warehouse', () => {
    expect(Object.keys(bvsync).sort()).toEqual(
      [
        'ConfigError',
        'STREAMS',
        'STREAM_NAMES',
        'Warehouse',
        'WorkerHost',
        'configSchema',
        'createApiClient',
        'enqueueRun',
        'getStream',
        'loadConfig',
        'openWarehouse',
        'parseConfig',
        'runSync',
        'selectStreams',
      ].sort(),
    );
    expect([...bvsync.STREAMS.keys()]).toEqual([...bvsync.STREAM_NAMES]);
  });
});
