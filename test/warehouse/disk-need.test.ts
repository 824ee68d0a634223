import { describe, expect, it } from 'vitest';
import { parseDuckDbSize } from '../../src/warehouse/file/duckdb-budget.js';
import { estimateDiskNeed, WAL_ALLOWANCE_BYTES } from '../../src/warehouse/file/disk-need.js';

const GB = 1e9;

describe('the free space the next run may need', () => {
  it("is a whole copy of the file to publish, twice the window's share of it, the log and the spill", () => {
    // 10 GB holding 100 days; a 3-day sync adds 0.3 GB, published as a copy of 10.3 GB.
    const need = estimateDiskNeed({ warehouseBytes: 10 * GB, windowDays: 3, heldDays: 100, memoryLimitBytes: 256e6 });
    expect(need.growthBytes).toBe(0.3 * GB);
    expect(need.needBytes).toBe(10 * GB + 0.6 * GB + WAL_ALLOWANCE_BYTES + 256e6);
  });

  it('counts a run as large as the file when the days held are not known, and never more', () => {
    expect(
      estimateDiskNeed({ warehouseBytes: GB, windowDays: 7, heldDays: undefined, memoryLimitBytes: 0 }).growthBytes,
    ).toBe(GB);
    expect(
      estimateDiskNeed({ warehouseBytes: GB, windowDays: 365, heldDays: 30, memoryLimitBytes: 0 }).growthBytes,
    ).toBe(GB);
  });

  it('reads memory_limit as DuckDB does', () => {
    expect(parseDuckDbSize('256MB')).toBe(256e6);
    expect(parseDuckDbSize('1GiB')).toBe(2 ** 30);
    expect(parseDuckDbSize('1.5 GB')).toBe(1.5e9);
    expect(parseDuckDbSize('lots')).toBe(0);
  });
});
