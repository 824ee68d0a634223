import { describe, expect, it } from 'vitest';
import { DEFAULT_DUCKDB_BUDGET, memoryLimitWarning } from '../../src/warehouse/file/duckdb-budget.js';

describe('memoryLimitWarning', () => {
  it('says nothing of the default limit or a larger one, in any unit', () => {
    expect(memoryLimitWarning(DEFAULT_DUCKDB_BUDGET.memoryLimit)).toBeUndefined();
    expect(memoryLimitWarning('1GiB')).toBeUndefined();
    expect(memoryLimitWarning('0.5 GB')).toBeUndefined();
  });

  it('names a lower limit, the safe one, the setting to raise and where to read why', () => {
    const warning = memoryLimitWarning('64MB');
    expect(warning).toContain('warehouse.memoryLimit 64MB is below 160MB');
    expect(warning).toContain('BVSYNC_DUCKDB_MEMORY_LIMIT');
    expect(warning).toContain('docs/troubleshooting.md, "Corrupted unique ART index"');
    expect(memoryLimitWarning('150MiB')).toBeDefined();
  });
});
