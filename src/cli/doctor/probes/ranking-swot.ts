import type { ProductRankingRow } from '../../../streams/product-ranking.js';
import type { SwotAnswer } from '../../../streams/swot.js';
import { ENDPOINTS } from '../endpoints.js';
import { looseDayOf, sameAnswer, type ProbeContext } from '../probe-context.js';
import { compareEngines, compareToBase, compareTopics, invalidAs } from './compare.js';
import { probeDateRange } from './date-range.js';
import { firstPage, isEmpty, type FirstPage } from './first-page.js';
import { probePaging } from './paging.js';

/**
 * Endpoint 19: the range (three), metric, subject, order, engines, topics (one each), paging (two). The metric
 * decides the order of the products; a ranking by recommendation ordered by visibility shows it was ignored.
 */
export async function probeProductRanking(ctx: ProbeContext): Promise<void> {
  const endpoint = ENDPOINTS.productRanking;
  const { client, brand, windows, book } = ctx;
  const read = (options: object, pageSize = 50): Promise<FirstPage<ProductRankingRow>> =>
    firstPage(client.productRanking(brand, { ...windows.wide, pageSize, ...options }));
  const base = await probeDateRange(ctx, endpoint, read);

  const byRecommendation = await compareToBase(
    ctx,
    endpoint,
    'metric',
    base,
    () => read({ metric: 'recommendation' }),
    {
      shown: 'recommendation',
      tiebreak: invalidAs(read, 'metric', 'not-a-metric'),
    },
  );
  if (byRecommendation && base && sameAnswer(byRecommendation, base)) {
    const rows = byRecommendation.records;
    const values = rows.map((r) => r.recommendation).filter((v): v is number => typeof v === 'number');
    if (values.length === rows.length && values.some((v, i) => i > 0 && v > values[i - 1]!)) {
      book.wrong(
        endpoint,
        'metric',
        'the ranking by recommendation is not ordered by recommendation (it is the ranking by visibility)',
      );
    }
  }
  await compareToBase(ctx, endpoint, 'subject', base, () => read({ subject: 'competitor' }), {
    shown: 'competitor',
    tiebreak: invalidAs(read, 'subject', 'not-a-subject'),
  });
  await compareToBase(ctx, endpoint, 'order', base, () => read({ order: 'asc' }), {
    shown: 'asc',
    tiebreak: invalidAs(read, 'order', 'sideways'),
    unshown: (base?.records.length ?? 0) < 2 ? 'fewer than 2 products are ranked' : undefined,
  });

  await compareEngines(ctx, endpoint, base, read);
  await compareTopics(ctx, endpoint, base, read);

  await probePaging(ctx, endpoint, ['start_date', 'end_date', 'engines'], (size) =>
    client.productRanking(brand, { ...windows.wide, pageSize: size }),
  );
}

/** Endpoint 20, for the first id in sync.swotStatementIds of the brand: the range (three), competitors, type, paging (two). */
export async function probeSwot(ctx: ProbeContext): Promise<void> {
  const endpoint = ENDPOINTS.swot;
  const { client, brand, windows, facts } = ctx;
  const statement = ctx.config.sync.swotStatementIds[String(brand)]?.[0];
  if (statement === undefined) {
    return ctx.failed(
      endpoint,
      ['start_date', 'end_date', 'engines', 'competitors', 'type', 'page', 'page_size'],
      `no SWOT statement id for brand ${brand} in sync.swotStatementIds; add one to check these`,
    );
  }
  const read = (options: object, pageSize = 100): Promise<FirstPage<SwotAnswer>> =>
    firstPage(client.swotAnswers(brand, statement, { ...windows.wide, pageSize, ...options }));
  const base = await probeDateRange(ctx, endpoint, read, { dayOfRecord: (record) => looseDayOf(record.date) });
  await compareEngines(ctx, endpoint, base, read, {
    // In any letter case: the engine asked is named as the conversations spell it, which the spec does not tie to this.
    breaks: (engine) => (r) =>
      r.model && r.model.toLowerCase() !== engine.toLowerCase() ? `an answer of ${r.model} came back` : undefined,
  });
  const competitor = facts.competitorIds[0];
  await compareToBase(ctx, endpoint, 'competitors', base, () => read({ competitors: [competitor] }), {
    shown: String(competitor),
    tiebreak: { invalid: 'x', call: () => read({ competitors: ['x'] }, 1) },
    unshown: competitor === undefined ? 'the brand has no competitor' : undefined,
  });
  const type = (base?.info as { type?: string } | undefined)?.type === 'threats' ? 'strengths' : 'threats';
  await compareToBase(ctx, endpoint, 'type', base, () => read({ type }), {
    shown: type,
    tiebreak: invalidAs(read, 'type', 'not-a-type'),
    unshown: base && isEmpty(base) ? 'the statement has no answer in the window' : undefined,
  });

  await probePaging(
    ctx,
    endpoint,
    ['start_date', 'end_date', 'engines'],
    (size) => client.swotAnswers(brand, statement, { ...windows.wide, pageSize: size }),
    (r) => (r as SwotAnswer).conversation_id,
  );
}
