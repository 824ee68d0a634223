import { formatInteger } from '../format.js';
import { textTable } from '../text-table.js';
import type { DayWindow } from './figure.js';
import { daysAsWindows, joinWindows } from './narrow-days.js';
import type { VerifyReport } from './verify-warehouse.js';

function windowText(window: DayWindow): string {
  return window.from === window.to ? window.from : `${window.from}..${window.to}`;
}

function numberText(value: number | null): string {
  return value === null ? '(none)' : formatInteger(value);
}

/**
 * The text form of `verify`: figures, calls made, and the backfills that would mend it. Agreeing per-item figures are
 * counted, not listed, unless `all` asks for them, so hundreds of pages and products do not bury a disagreement.
 */
export function renderVerify(report: VerifyReport, options: { all?: boolean } = {}): string {
  const table = textTable(
    ['brand', 'family', 'figure', 'API', 'warehouse', 'agree'],
    ['right', 'left', 'left', 'right', 'right', 'left'],
  );
  let hidden = 0;
  for (const brand of report.brands) {
    for (const entry of brand.figures) {
      if (!options.all && entry.agree && entry.detail) {
        hidden++;
        continue;
      }
      table.push([
        String(brand.brandId),
        entry.family,
        entry.figure,
        numberText(entry.api),
        numberText(entry.warehouse),
        entry.agree ? 'yes' : 'NO',
      ]);
    }
  }
  const out = [
    `Figures over ${windowText(report.window)} (the API's range answers against the warehouse's daily rows)`,
    table.toString(),
  ];
  if (hidden)
    out.push(
      `${formatInteger(hidden)} more figure${hidden === 1 ? '' : 's'} (per topic, page, ownership and product) agree; --all lists them.`,
    );
  out.push('');
  const wholeWindow = report.calls.total - report.calls.narrowing;
  out.push(
    `API calls: ${report.calls.total} (${wholeWindow} for the whole window: one per figure family and brand, plus pages; ` +
      `${report.calls.narrowing} narrowing disagreements down to days, at most ${report.calls.narrowingLimit})`,
  );
  for (const brand of report.brands) {
    if (brand.notSynced.length)
      out.push(`Brand ${brand.brandId}: not compared, never synced for it: ${brand.notSynced.join(', ')}.`);
    for (const why of brand.notCompared) out.push(`Brand ${brand.brandId}: not compared: ${why}.`);
  }
  if (report.agree) {
    out.push(`Every figure agrees: the warehouse holds what the API reports over ${windowText(report.window)}.`);
    return `${out.join('\n')}\n`;
  }
  const disagreeing = report.brands.flatMap((brand) => brand.figures).filter((entry) => !entry.agree).length;
  out.push(`${disagreeing} figure${disagreeing === 1 ? '' : 's'} disagree. Backfill again:`);
  for (const brand of report.brands) {
    for (const { window, why } of backfills(brand)) {
      const command = `bvsync backfill --brand ${brand.brandId} --from ${window.from} --to ${window.to}`;
      out.push(`  ${command}${why ? `   (${why})` : ''}`);
    }
  }
  return `${out.join('\n')}\n`;
}

const WHY = {
  named: 'these days disagree',
  unresolved: 'not narrowed down to days: raise --max-calls to name them',
  undivided:
    'it disagrees while neither half does, so backfill it whole: a figure that does not add up over days, or an API that changed meanwhile',
} as const;

/**
 * One backfill per run of days that need one, whichever family named them, so no two commands cover one day. A window
 * not narrowed to days says why; a joined command names each part's own reason.
 */
function backfills(brand: VerifyReport['brands'][number]): Array<{ window: DayWindow; why: string | undefined }> {
  return joinWindows<{ window: DayWindow; why: string }>([
    ...daysAsWindows(brand.daysToBackfill).map((window) => ({ window, tag: { window, why: WHY.named } })),
    ...brand.unresolved.map((window) => ({ window, tag: { window, why: WHY.unresolved } })),
    ...brand.undivided.map((window) => ({ window, tag: { window, why: WHY.undivided } })),
  ]).map(({ window, tags }) => {
    if (tags.every((tag) => tag.why === WHY.named)) return { window, why: undefined };
    if (tags.length === 1) return { window, why: tags[0]!.why };
    return { window, why: tags.map((tag) => `${windowText(tag.window)}: ${tag.why}`).join('; ') };
  });
}
