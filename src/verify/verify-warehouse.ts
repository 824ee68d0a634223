import { unlessSpent, type CallBudget } from './call-budget.js';
import { FIGURE_FAMILIES } from './families.js';
import type { DayWindow, Figure, FigureFamily, MeasureContext } from './figure.js';
import { daysAsWindows, mergeWindows, narrowDays, type NarrowedDays } from './narrow-days.js';
import { rowReader } from '../warehouse/read-rows.js';
import { syncedStreams } from '../warehouse/state/bookkeeping.js';

export interface VerifyOptions extends Pick<MeasureContext, 'client' | 'connection' | 'engineBreakdown' | 'signal'> {
  brands: number[];
  window: DayWindow;
  budget: CallBudget;
  /** Default: every family of families.ts. */
  families?: readonly FigureFamily[];
  /** Narrow the newer half of each window first (`sync.heal`: the newest days are healed first). */
  newestFirst?: boolean;
}

/** One brand's comparison over the window, and where its disagreements are. */
export interface BrandVerdict extends Pick<NarrowedDays, 'unresolved' | 'undivided'> {
  brandId: number;
  figures: Figure[];
  /** Days whose rows disagree with the API: backfill them again. */
  daysToBackfill: string[];
  /**
   * Families not compared because the warehouse never synced their stream for a brand it has other streams of, so the
   * narrowing budget goes to real losses.
   */
  notSynced: string[];
  /** Each family that disagrees, with its own days and windows (the lists above join them over families). */
  byFamily: FamilyVerdict[];
  /** Figures a family left out over the whole window, each with why (the API's answer does not bear out their reading). */
  notCompared: string[];
}

/** Where one family's disagreement of a brand lies. */
export interface FamilyVerdict extends NarrowedDays {
  family: string;
}

export interface VerifyReport {
  window: DayWindow;
  agree: boolean;
  brands: BrandVerdict[];
  calls: { total: number; narrowing: number; narrowingLimit: number };
}

/**
 * Compares every family over the whole window for each brand (one request per family and brand, plus pages), then
 * halves each window that disagrees down to the days to backfill again, within the narrowing budget.
 */
export async function verifyWarehouse(options: VerifyOptions): Promise<VerifyReport> {
  const families = options.families ?? FIGURE_FAMILIES;
  const { client, connection, engineBreakdown, signal } = options;
  const measure = (brandId: number, family: FigureFamily, window: DayWindow, notCompared?: (why: string) => void) =>
    family.measure({ client, connection, brandId, engineBreakdown, signal, notCompared }, window);

  const wholeWindow = new Map<
    number,
    { figures: Figure[]; measured: FigureFamily[]; notSynced: string[]; notCompared: Set<string> }
  >();
  // What each family's whole-window measurement cost, per brand: a half costs no more (fewer pages), so narrowing
  // measures a half only when that much is left of its budget.
  const cost = new Map<string, number>();
  const unmeasured: Array<{ brandId: number; family: string }> = [];
  for (const brandId of options.brands) {
    // A brand the warehouse holds nothing of is compared whole: every figure disagrees, and the backfill is named.
    const synced = await syncedStreams(rowReader(connection), brandId);
    // A family is named after the stream its rows come from.
    const isSynced = (family: FigureFamily) => synced.size === 0 || synced.has(family.name);
    const brand = {
      figures: [] as Figure[],
      measured: [] as FigureFamily[],
      notSynced: families.filter((family) => !isSynced(family)).map((family) => family.name),
      notCompared: new Set<string>(),
    };
    wholeWindow.set(brandId, brand);
    for (const family of families.filter(isSynced)) {
      const before = options.budget.total();
      // A bounding budget (sync.heal.maxCalls) refuses a request past it: the family's whole window stays unresolved.
      const whole = await unlessSpent(measure(brandId, family, options.window, (why) => brand.notCompared.add(why)));
      if (!whole) {
        unmeasured.push({ brandId, family: family.name });
        continue;
      }
      brand.figures.push(...whole);
      brand.measured.push(family);
      cost.set(`${brandId}|${family.name}`, Math.max(1, options.budget.total() - before));
    }
  }

  options.budget.startNarrowing();
  const brands: BrandVerdict[] = [];
  for (const brandId of options.brands) {
    const { figures, measured, notSynced, notCompared } = wholeWindow.get(brandId)!;
    const byFamily: FamilyVerdict[] = unmeasured
      .filter((each) => each.brandId === brandId)
      .map((each) => ({ family: each.family, days: [], unresolved: [options.window], undivided: [] }));
    for (const family of measured) {
      if (figures.every((entry) => entry.family !== family.name || entry.agree)) continue;
      const narrowed = await narrowDays(options.window, {
        disagrees: async (window) => (await measure(brandId, family, window)).some((entry) => !entry.agree),
        canSpend: () => options.budget.canSpend(cost.get(`${brandId}|${family.name}`) ?? 1),
        newestFirst: options.newestFirst,
      });
      byFamily.push({ family: family.name, ...narrowed });
    }
    const daysToBackfill = [...new Set(byFamily.flatMap((each) => each.days))].sort();
    // A window already named day by day needs no second mention as unresolved.
    const covered = (window: DayWindow) =>
      daysAsWindows(daysToBackfill).some((named) => named.from <= window.from && named.to >= window.to);
    brands.push({
      brandId,
      figures,
      daysToBackfill,
      unresolved: mergeWindows(byFamily.flatMap((each) => each.unresolved)).filter((window) => !covered(window)),
      undivided: mergeWindows(byFamily.flatMap((each) => each.undivided)).filter((window) => !covered(window)),
      notSynced,
      byFamily,
      notCompared: [...notCompared],
    });
  }
  return {
    window: options.window,
    agree: !unmeasured.length && brands.every((brand) => brand.figures.every((entry) => entry.agree)),
    brands,
    calls: {
      total: options.budget.total(),
      narrowing: options.budget.narrowing(),
      narrowingLimit: options.budget.narrowingLimit,
    },
  };
}
