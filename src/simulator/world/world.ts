import { DAY_MS } from '../sim-days.js';
import { ENGINES } from './engines.js';
import { hashString, randomFor } from './random.js';
import { BRAND_PREFIXES, BRAND_SUFFIXES, INDUSTRIES } from './word-lists.js';
import { drawContent } from './world-content.js';
import { drawPages } from './world-pages.js';
import { drawPeople } from './world-people.js';
import { drawProducts } from './world-products.js';
import { drawSearches } from './world-searches.js';
import type { BrandInfo, BrandWorld, Competitor, WorldDraft, WorldOptions } from './world-types.js';

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
      const name = `${rng.pick(BRAND_PREFIXES)}${rng.pick(BRAND_SUFFIXES)}`;
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
  const { groups, trackedUrls, ...citedPages } = drawPages(draft, competitors);
  const { products, productWeights } = drawProducts(draft, competitors);
  const { templates, articles, contentAnalyses, statements } = drawContent(
    draft,
    options.hasTemplates,
    topics,
    citedPages.ownPages,
  );
  const { phrases, searches, basisTopics } = drawSearches(draft, topics, competitors);
  // How much more or less often each engine mentions the brand than its topics' visibility says; drawn last.
  const engineFactor = Object.fromEntries(ENGINES.map((engine) => [engine, 0.7 + rng.next() * 0.5] as const));

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
    basis: { topics: basisTopics, competitors, ...citedPages, products, productWeights, engineFactor, statements },
    nextId,
    peekId: (k) => brandId * 100_000 + serial + k,
  };
}

/** The brand's ten competitors, each with how strongly answers favour it. */
function drawCompetitors(draft: WorldDraft): Array<{ competitor: Competitor; strength: number }> {
  const { rng, nextId, uniqueName } = draft;
  return Array.from({ length: 10 }, (_, i) => {
    const competitorName = uniqueName();
    return {
      // The last three are the platform's suggestions (is_actual false, endpoint 7).
      competitor: { id: nextId(), name: competitorName, website: website(competitorName), is_actual: i < 7 },
      strength: 0.15 + rng.next() * 0.45,
    };
  });
}

function website(name: string): string {
  return `${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.com`;
}
