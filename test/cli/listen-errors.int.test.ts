import { describe, expect, it } from 'vitest';
import { runBvsync } from '../support/engine.js';

/** A `--host` this machine has no interface for is the user's to change: exit 2, naming the option. */

describe('a server command given an address this machine does not have', () => {
  it('simulate says --host is not an address of this machine, exit 2', async () => {
    // 10.255.255.1 is on no interface of the test machine: listen fails with EADDRNOTAVAIL, without any lookup.
    const result = await runBvsync(['simulate', '--port', '0', '--host', '10.255.255.1'], process.env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('--host 10.255.255.1 is not an address of this machine (EADDRNOTAVAIL)');
  });
});
