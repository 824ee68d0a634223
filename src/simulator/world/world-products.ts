import type { Competitor, Product, WorldDraft } from './world-types.js';

/** Products answers rank: eight of the brand's, two of each competitor's, each with its appeal as its weight. */
export function drawProducts(draft: WorldDraft, competitors: ReadonlyArray<{ competitor: Competitor }>) {
  const { rng, nextId, industry, brand } = draft;
  const products: Product[] = [];
  const productWeights: number[] = [];
  const addProduct = (owner: number, label: string) => {
    const noun = rng.pick(industry.productNouns);
    const id = nextId();
    const appeal = 0.2 + rng.next();
    products.push({
      id,
      owner,
      label,
      title: `${label} ${noun} ${rng.pick(['Pro', 'Lite', 'Max', 'One', 'Plus', 'S', 'X'])}`,
      category: noun,
      price: `$${(19 + rng.int(480)).toString()}.${rng.pick(['00', '49', '95', '99'])}`,
      rating: Math.round((3 + rng.next() * 2) * 10) / 10,
      reviews: rng.between(3, 5000),
      image_url: `https://img.${brand.website}/products/${id}.jpg`,
      appeal,
    });
    productWeights.push(owner === -1 ? appeal * 1.5 : appeal);
  };
  for (let i = 0; i < 8; i++) addProduct(-1, brand.name);
  competitors.forEach(({ competitor }, index) => {
    addProduct(index, competitor.name);
    addProduct(index, competitor.name);
  });
  return { products, productWeights };
}
