import { describe, expect, it } from 'vitest';
import { renderVerify } from '../../src/verify/render-verify.js';
import type { VerifyReport } from '../../src/verify/verify-warehouse.js';

/** A report of one brand whose conversations disagree, with what narrowing left as given. */
function report(
  brand: Pick<VerifyReport['brands'][number], 'daysToBackfill' | 'unresolved' | 'undivided'> &
    Partial<VerifyReport['brands'][number]>,
): VerifyReport {
  return {
    window: { from: '2026-11-01', to: '2026-11-30' },
    agree: false,
    brands: [
      {
        brandId: 1,
        figures: [
          {
            family: 'conversations',
            figure: 'answers',
            api: 10,
            warehouse: 9,
            agree: false,
          } as VerifyReport['brands'][number]['figures'][number],
        ],
        notSynced: [],
        byFamily: [],
        notCompared: [],
        ...brand,
      },
    ],
    calls: { total: 31, narrowing: 20, narrowingLimit: 1000 },
  };
}

const commands = (text: string) => text.split('\n').filter((line) => line.startsWith('  bvsync backfill'));

describe("verify's backfill commands", () => {
  it('blames --max-calls only for windows the budget left unsplit', () => {
    const text = renderVerify(
      report({
        daysToBackfill: [],
        unresolved: [{ from: '2026-11-03', to: '2026-11-05' }],
        undivided: [{ from: '2026-11-20', to: '2026-11-23' }],
      }),
    );
    expect(commands(text)).toEqual([
      '  bvsync backfill --brand 1 --from 2026-11-03 --to 2026-11-05   (not narrowed down to days: raise --max-calls to name them)',
      '  bvsync backfill --brand 1 --from 2026-11-20 --to 2026-11-23   (it disagrees while neither half does, so backfill it whole: a figure that does not add up over days, or an API that changed meanwhile)',
    ]);
  });

  it('names each day once: days one family named and a window another left unsplit become one command', () => {
    const text = renderVerify(
      report({
        daysToBackfill: ['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-25'],
        unresolved: [],
        undivided: [{ from: '2026-11-17', to: '2026-11-19' }],
      }),
    );
    // It had printed 11-14..11-17 and 11-17..11-19, the 17th in both; then one command whose one reason, the unsplit
    // window's, read as the reason of the days named.
    expect(commands(text)).toEqual([
      '  bvsync backfill --brand 1 --from 2026-11-14 --to 2026-11-19   (2026-11-14..2026-11-17: these days disagree; 2026-11-17..2026-11-19: it disagrees while neither half does, so backfill it whole: a figure that does not add up over days, or an API that changed meanwhile)',
      '  bvsync backfill --brand 1 --from 2026-11-25 --to 2026-11-25',
    ]);
  });

  it('says which figures a family left out, and why', () => {
    const text = renderVerify(
      report({
        daysToBackfill: [],
        unresolved: [],
        undivided: [],
        notCompared: [
          "tracked_urls' answers the counts read: the API's pages carry 2 different counts, so they are no one figure",
        ],
      }),
    );
    expect(text).toContain(
      "Brand 1: not compared: tracked_urls' answers the counts read: the API's pages carry 2 different counts, so they are no one figure.\n",
    );
  });
});
