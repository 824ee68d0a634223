import { InvalidArgumentError } from 'commander';

/** Parses a whole-number option between `min` and `max`, refusing anything else with the option's name (exit 2). */
export function integerOption(name: string, min = 0, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `${name} must be an integer >= ${min}`
          : `${name} must be an integer from ${min} to ${max}`,
      );
    return value;
  };
}
