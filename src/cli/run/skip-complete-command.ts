import type { SkipCompleteBackfill } from '../../engine/plan/skip-complete-backfill.js';

/**
 * The command that runs the backfill: `--brand` unless it is all the config's, and `--streams` always, or it would read
 * every window stream again under slice keys the file has none of (test/engine/skip-complete-backfill.test.ts).
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
