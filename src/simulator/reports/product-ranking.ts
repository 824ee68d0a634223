import type { AnswerFilter, AnswerStore } from '../world/answers.js';
import type { BrandWorld } from '../world/world-types.js';
import { ratio, wilson } from './wilson.js';

type RankingMetric = 'visibility' | 'recommendation';
type RankingSubject = 'brand' | 'competitor';

/**
 * Endpoint 19: visibility and recommendation are the shares of the range's shopping answers listing or recommending
 * the product. rank is by the metric, highest first, whatever the order (asc only reverses the list).
 */
export function productRanking(
  store: AnswerStore,
  world: BrandWorld,
  filter: AnswerFilter,
  metric: RankingMetric,
  subject: RankingSubject,
  order: 'asc' | 'desc',
) {
  let shopping = 0;
  const listed = new Map<number, number>();
  const recommended = new Map<number, number>();
  store.forEach(world.brand.id, filter, (answer) => {
    if (!answer.hasShopping) return;
    shopping++;
    for (const mention of answer.products) {
      listed.set(mention.product.id, (listed.get(mention.product.id) ?? 0) + 1);
      if (mention.recommended) recommended.set(mention.product.id, (recommended.get(mention.product.id) ?? 0) + 1);
    }
  });
  const rows = world.basis.products
    .filter((product) => (subject === 'brand' ? product.owner === -1 : product.owner >= 0) && listed.has(product.id))
    .map((product) => {
      const seen = listed.get(product.id) ?? 0;
      const picked = recommended.get(product.id) ?? 0;
      return {
        id: product.id,
        rank: 0,
        label: product.label,
        title: product.title,
        category: product.category,
        price: product.price,
        rating: product.rating,
        reviews: product.reviews,
        visibility: ratio(seen, shopping),
        recommendation: ratio(picked, shopping),
        image_url: product.image_url,
        confidence_interval: wilson(metric === 'visibility' ? seen : picked, shopping),
      };
    })
    .sort((a, b) => b[metric] - a[metric] || a.id - b.id);
  rows.forEach((row, index) => (row.rank = index + 1));
  if (order === 'asc') rows.reverse();
  return { rows, shoppingConversations: shopping };
}
