import type { SkipCompleteBackfill } from '../engine/plan/skip-complete-backfill.js';

/**
 * The command that runs the backfill. `--brand` names its brands when they are not the config's all (or the config
 * names none, when a backfill needs it); `--streams` always, or the backfill would read every window stream again in
 * full, their slices keyed by a window that matches none the file has (test/engine/skip-complete-backfill.test.ts).
 */
export function skipCompleteCommand(backfill: SkipCompleteBackfill, configBrands: readonly number[]): string {
  const allBrands = configBrands.length > 0 && configBrands.every((brand) => backfill.brands.includes(brand));
  return [
    'bvsync backfill',
    ...(allBrands ? [] : [`--brand ${backfill.brands.join(',')}`]),
    `--streams ${backfill.streams.join(',')}`,
    `--from ${backfill.from} --to ${backfill.to} --skip-complete`,
  ].join(' ');
}
