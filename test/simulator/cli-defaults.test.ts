import { describe, expect, it } from 'vitest';
import { simulateCommand } from '../../src/cli/simulate.js';
import { DEFAULT_KNOBS } from '../../src/simulator/knobs.js';
import { SIMULATOR_DEFAULTS } from '../../src/simulator/options.js';

/** The flag's name where it differs from the option or knob it sets. */
const SETS: Readonly<Record<string, string>> = { retryAfter: 'retryAfterSeconds' };

describe('bvsync simulate', () => {
  it("shows the simulator's own defaults: a flag left out starts the simulator as the library would", () => {
    const defaults: Record<string, unknown> = { ...SIMULATOR_DEFAULTS, ...DEFAULT_KNOBS };
    const compared = simulateCommand().options.flatMap((option) => {
      const name = SETS[option.attributeName()] ?? option.attributeName();
      if (defaults[name] === undefined || option.defaultValue === undefined) return [];
      const expected = Array.isArray(defaults[name]) ? (defaults[name] as unknown[]).join(',') : defaults[name];
      return [{ name, shown: option.defaultValue, expected }];
    });
    for (const { name, shown, expected } of compared) expect(shown, name).toEqual(expected);
    expect(compared.length).toBeGreaterThanOrEqual(24);
  });
});
