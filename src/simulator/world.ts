import { DAY_MS } from './sim-days.js';
import { ENGINES } from './engines.js';
import { hashString, randomFor } from './random.js';
import { INDUSTRIES } from './word-lists.js';
import { drawContent } from './world-content.js';
import { brandName, website } from './world-names.js';
import { drawPages } from './world-pages.js';
import { drawPeople } from './world-people.js';
import { drawProducts } from './world-products.js';
import { drawCompetitors } from './world-rivals.js';
import { drawSearches } from './world-searches.js';
import type { BrandInfo, BrandWorld, WorldDraft, WorldOptions } from './world-types.js';

/**
 * A brand's world, drawn part by part from one random stream. The order of the parts is the order of the draws: keep
 * it, or every seed gives another world (and the tests' expected data changes).
 */
export function generateWorld(options: WorldOptions): BrandWorld {
  const { seed, brandId, firstDay } = options;
  const rng = randomFor(seed, brandId, hashString('world'));
  let serial = 0;
  const nextId = () => brandId * 100_000 + ++serial;
  const beforeStart = (maxDays: number) => firstDay * DAY_MS - (1 + rng.int(maxDays)) * DAY_MS - rng.int(DAY_MS);

  const industry = INDUSTRIES[(brandId + seed) % INDUSTRIES.length]!;
  const usedNames = new Set<string>();
  const uniqueName = () => {
    for (;;) {
      const name = brandName(rng);
      if (!usedNames.has(name)) {
        usedNames.add(name);
        return name;
      }
    }
  };
  const name = uniqueName();
  const brand: BrandInfo = {
    id: brandId,
    name,
    website: website(name),
    industry: industry.name,
    engines: rng.sample(ENGINES, rng.between(4, 6)).sort((a, b) => ENGINES.indexOf(a) - ENGINES.indexOf(b)),
  };
  const draft: WorldDraft = { rng, industry, brand, nextId, beforeStart, uniqueName };
  const { personas, tags, topics } = drawPeople(draft);
  const competitors = drawCompetitors(draft);
  const { groups, trackedUrls, ownPages, ownPageWeights, competitorPages, thirdPartyPages } = drawPages(
    draft,
    competitors,
  );
  const { products, productWeights } = drawProducts(draft, competitors);
  const { templates, articles, contentAnalyses, statements } = drawContent(
    draft,
    options.hasTemplates,
    topics,
    ownPages,
  );
  const { phrases, searches, basisTopics } = drawSearches(draft, topics, competitors);
  // How much more or less often each engine mentions the brand than its topics' visibility says; drawn last.
  const engineFactor: Record<string, number> = {};
  for (const engine of ENGINES) engineFactor[engine] = 0.7 + rng.next() * 0.5;

  return {
    brand,
    topics,
    personas,
    tags,
    competitors: competitors.map((c) => c.competitor),
    groups,
    trackedUrls,
    templates,
    articles,
    contentAnalyses,
    swotStatements: statements,
    searches,
    phrases,
    basis: {
      topics: basisTopics,
      competitors,
      ownPages,
      ownPageWeights,
      competitorPages,
      thirdPartyPages,
      products,
      productWeights,
      engineFactor,
      statements,
    },
    nextId,
    peekId: (k) => brandId * 100_000 + serial + k,
  };
}
