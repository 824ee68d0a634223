import { describe, expect, it } from 'vitest';
import { validateSchedules } from '../../src/engine/schedule/scheduler.js';

describe('validateSchedules', () => {
  it('refuses what the config schema refuses, in its words, for a Config built without parsing', () => {
    expect(() => validateSchedules([{ name: 'daily', cron: '0 2 * * *' }])).not.toThrow();
    expect(() =>
      validateSchedules([
        { name: 'daily', cron: '0 2 * * *' },
        { name: 'late', cron: '0 25 * * *' },
      ]),
    ).toThrow(
      /schedules\[1\]\.cron: "0 25 \* \* \*" is not a valid cron expression \(hour "25": 25 is out of range 0-23\)/,
    );
  });
});
