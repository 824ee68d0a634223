import { DAY_MS, isoTime } from './sim-days.js';
import { ENGINES, type Engine } from './engines.js';
import { Random, hashString, randomFor } from './random.js';
import { ARTICLE_STATUSES, type ContentType, type Ownership, type SwotType } from './spec-enums.js';
import {
  BRAND_PREFIXES,
  BRAND_SUFFIXES,
  CITIES,
  FIRST_NAMES,
  INDUSTRIES,
  LANGUAGES,
  PAGE_SLUGS,
  PERSONA_ROLES,
  SCENARIO_PATTERNS,
  SWOT_TEXTS,
  TAG_NAMES,
  THIRD_PARTY_SITES,
} from './vocabulary.js';

/**
 * One brand's catalog: everything that is not a daily answer. Generated once from (seed, brand); the write
 * endpoints then change it in place (the "overlay"). The answers are generated from `basis`, a snapshot
 * taken before any write, so a write never rewrites history: a confirmed suggestion keeps its past mentions,
 * a new topic has no answers yet ("A new topic runs with the next run of the brand").
 */
export interface BrandWorld {
  brand: BrandInfo;
  topics: Topic[];
  personas: Persona[];
  tags: Tag[];
  competitors: Competitor[];
  groups: UrlGroup[];
  trackedUrls: TrackedUrl[];
  templates: Template[];
  articles: Article[];
  contentAnalyses: ContentAnalysis[];
  swotStatements: SwotStatement[];
  searches: FanoutSearch[];
  phrases: string[];
  basis: AnswerBasis;
  /** Next id of anything this brand creates. */
  nextId: () => number;
  /** The id the k-th next call of nextId would give (k = 1 is the next), without taking it: for dry runs. */
  peekId: (k: number) => number;
}

export interface BrandInfo {
  id: number;
  name: string;
  website: string;
  industry: string;
  /** The brand's engines: the default engine filter of visibility, product ranking and fanouts cited. */
  engines: Engine[];
}

export interface Scenario {
  id: number;
  topic_id: number;
  text: string;
  status: string;
  created_at: string;
}

export interface Tag {
  id: number;
  name: string;
  color: string;
}

export interface Topic {
  id: number;
  name: string;
  language: string;
  type: string;
  status: string;
  created_at: string;
  answer_engines: string[];
  persona_id?: number;
  scenarios: Scenario[];
  tags: Tag[];
  deleted: boolean;
}

export interface Persona {
  id: number;
  name: string;
  description: string;
  city?: string;
  country?: string;
  properties?: Record<string, unknown>;
}

export interface Competitor {
  id: number;
  name: string;
  website: string;
  is_actual: boolean;
}

export interface UrlGroup {
  id: number;
  name: string;
}

export interface TrackedUrl {
  id: number;
  url: string;
  title: string;
  created_at: string;
  group_id?: number;
}

export interface Template {
  id: number;
  title: string;
  type: 'brief' | 'article';
  article_type?: string;
  content?: string;
  created_at: string;
  updated_at: string;
}

export interface Article {
  id: number;
  title?: string;
  slug?: string;
  language?: string;
  type?: string;
  version?: number;
  status: string;
  generation_status: string;
  topic_ids?: number[];
  scenario_ids?: number[];
  created_at: string;
  updated_at: string;
}

export interface ContentAnalysis {
  id: number;
  kind: string;
  status: string;
  step: string;
  created_at: string;
  updated_at: string;
  article_id?: number;
  title?: string;
  topic_id?: number;
  topic_name?: string;
  url?: string;
}

export interface SwotStatement {
  id: number;
  type: SwotType;
  text: string;
}

export interface FanoutSearch {
  id: number;
  query: string;
  topicId: number;
}

/** A page that answers cite. */
export interface CitedPage {
  url: string;
  domain: string;
  ownership: Ownership;
  contentType: ContentType;
  firstParty: boolean;
}

export interface Product {
  id: number;
  /** -1 for the brand's own products, else the index of the competitor in `basis.competitors`. */
  owner: number;
  label: string;
  title: string;
  category: string;
  price: string;
  rating: number;
  reviews: number;
  image_url: string;
  appeal: number;
}

/** What the daily answers are generated from; never changed by writes. */
export interface AnswerBasis {
  /** Topics that run (not deleted at start), with their scenarios and engines. */
  topics: Array<{ topic: Topic; scenarios: Scenario[]; engines: Engine[]; visibility: number; searches: number[] }>;
  competitors: Array<{ competitor: Competitor; strength: number }>;
  ownPages: CitedPage[];
  /** Weights of ownPages: tracked pages are cited more, so tracked URL counts are not all zero. */
  ownPageWeights: number[];
  competitorPages: CitedPage[][];
  thirdPartyPages: CitedPage[];
  products: Product[];
  productWeights: number[];
  engineFactor: Record<string, number>;
  statements: SwotStatement[];
}

export interface WorldOptions {
  seed: number;
  brandId: number;
  /** First day with data; catalog timestamps lie before it. */
  firstDay: number;
  /** False for the brand that shows the platform's templates instead of its own. */
  hasTemplates: boolean;
}

/** Templates of the platform, shown to a brand that has none (endpoint 10). */
export function platformTemplates(firstDay: number): Template[] {
  const base = firstDay * DAY_MS - 400 * DAY_MS;
  const titles: Array<[string, 'brief' | 'article', string]> = [
    ['Product comparison brief', 'brief', 'comparison'],
    ['How-to guide', 'article', 'guide'],
    ['Best-of listicle', 'article', 'listicle'],
    ['FAQ page brief', 'brief', 'faq'],
  ];
  return titles.map(([title, type, articleType], index) => ({
    id: index + 1,
    title,
    type,
    article_type: articleType,
    content: `# ${title}\n\nOutline, audience and key points.`,
    created_at: isoTime(base + index * 7 * DAY_MS),
    updated_at: isoTime(base + index * 7 * DAY_MS + DAY_MS),
  }));
}

function brandName(rng: Random): string {
  return `${rng.pick(BRAND_PREFIXES)}${rng.pick(BRAND_SUFFIXES)}`;
}

function website(name: string): string {
  return `${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.com`;
}

function color(rng: Random): string {
  return `#${rng.int(0x1000000).toString(16).padStart(6, '0')}`;
}

export function normalizeUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  let text = url.toString();
  if (url.search === '' && text.endsWith('/')) text = text.slice(0, -1);
  return text;
}

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

  const personas: Persona[] = [];
  for (let i = 0; i < 3; i++) {
    const [city, country] = rng.pick(CITIES);
    const role = rng.pick(PERSONA_ROLES);
    personas.push({
      id: nextId(),
      name: `${rng.pick(FIRST_NAMES)}, ${role}`,
      description: `A ${role} looking for ${industry.name}.`,
      city,
      country,
      properties: { demographics: { age_range: rng.pick(['18-24', '25-34', '35-44', '45-64']) }, interests: { primary: rng.pick(industry.productNouns) } },
    });
  }

  const tags: Tag[] = rng.sample(TAG_NAMES, 4).map((tagName) => ({ id: nextId(), name: tagName, color: color(rng) }));

  const topics: Topic[] = [];
  const topicNames = rng.sample(industry.topicNames, 7);
  topicNames.forEach((topicName, index) => {
    const topicId = nextId();
    const created = beforeStart(300);
    const scenarios: Scenario[] = [];
    const scenarioCount = rng.between(3, 5);
    const texts = new Set<string>();
    while (texts.size < scenarioCount) {
      texts.add(rng.pick(SCENARIO_PATTERNS).replace('{noun}', rng.pick(industry.productNouns)).replace('{qualifier}', rng.pick(industry.qualifiers)));
    }
    for (const text of texts) {
      scenarios.push({ id: nextId(), topic_id: topicId, text, status: rng.chance(0.9) ? 'active' : 'paused', created_at: isoTime(created + rng.int(DAY_MS)) });
    }
    const engines = [...brand.engines] as string[];
    if (rng.chance(0.4)) {
      const extra = ENGINES.filter((e) => !engines.includes(e));
      engines.push(rng.pick(extra));
    }
    topics.push({
      id: topicId,
      name: topicName,
      language: rng.pick(LANGUAGES),
      type: 'prompter',
      status: 'active',
      created_at: isoTime(created),
      answer_engines: engines,
      persona_id: rng.pick(personas).id,
      scenarios,
      tags: rng.sample(tags, rng.int(3)),
      // The last topic starts deleted, so restore (endpoint 5) has something to bring back.
      deleted: index === topicNames.length - 1,
    });
  });

  const competitors: Array<{ competitor: Competitor; strength: number }> = [];
  for (let i = 0; i < 10; i++) {
    const competitorName = uniqueName();
    competitors.push({
      // The last three are the platform's suggestions (is_actual false, endpoint 7).
      competitor: { id: nextId(), name: competitorName, website: website(competitorName), is_actual: i < 7 },
      strength: 0.15 + rng.next() * 0.45,
    });
  }

  const groups: UrlGroup[] = ['Product pages', 'Blog', 'Guides'].map((groupName) => ({ id: nextId(), name: groupName }));
  const sections: Array<[string, ContentType]> = [
    ['products', 'product_service_page'],
    ['blog', 'blog_article'],
    ['guides', 'documentation_knowledge_base'],
    ['stories', 'case_study'],
    ['press', 'press_release'],
  ];
  const ownPages: CitedPage[] = [];
  const ownPageWeights: number[] = [];
  const trackedUrls: TrackedUrl[] = [];
  for (let i = 0; i < 22; i++) {
    const [section, contentType] = sections[i % sections.length]!;
    const noun = industry.productNouns[i % industry.productNouns.length]!.replace(/\s+/g, '-');
    const url = `https://${brand.website}/${section}/${noun}-${PAGE_SLUGS[i % PAGE_SLUGS.length]}`;
    ownPages.push({ url, domain: brand.website, ownership: 'first_party', contentType, firstParty: true });
    const tracked = i < 16;
    ownPageWeights.push(tracked ? 3 : 1);
    if (tracked) {
      const group = i < 12 ? groups[i % groups.length] : undefined;
      trackedUrls.push({
        id: nextId(),
        url,
        title: `${industry.productNouns[i % industry.productNouns.length]} ${PAGE_SLUGS[i % PAGE_SLUGS.length]} | ${brand.name}`,
        created_at: isoTime(beforeStart(200)),
        ...(group ? { group_id: group.id } : {}),
      });
    }
  }

  const competitorPages = competitors.map(({ competitor }) =>
    ['', 'products', 'compare', 'blog'].map((section, k) => ({
      url: section ? `https://${competitor.website}/${section}/${PAGE_SLUGS[(k + competitor.id) % PAGE_SLUGS.length]}` : `https://${competitor.website}`,
      domain: competitor.website,
      ownership: 'competitor_owned' as const,
      contentType: (k === 0 ? 'product_service_page' : k === 2 ? 'comparison_vs_page' : 'blog_article') as ContentType,
      firstParty: false,
    })),
  );

  const thirdPartyPages: CitedPage[] = [];
  for (const site of THIRD_PARTY_SITES) {
    for (let k = 0; k < 4; k++) {
      const noun = rng.pick(industry.productNouns).replace(/\s+/g, '-');
      thirdPartyPages.push({
        url: `https://${site.domain}/${rng.pick(PAGE_SLUGS)}-${noun}-${k + 1}`,
        domain: site.domain,
        ownership: site.ownership as Ownership,
        contentType: rng.pick(site.contentTypes) as ContentType,
        firstParty: false,
      });
    }
  }

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

  const templates: Template[] = [];
  if (options.hasTemplates) {
    for (let i = 0; i < 6; i++) {
      const created = beforeStart(365);
      const type = i % 3 === 0 ? 'brief' : 'article';
      templates.push({
        id: nextId(),
        title: `${brand.name} ${rng.pick(industry.productNouns)} ${type === 'brief' ? 'brief' : rng.pick(['guide', 'review', 'comparison'])} ${i + 1}`,
        type,
        ...(type === 'article' ? { article_type: rng.pick(['guide', 'listicle', 'comparison', 'review']) } : {}),
        ...(rng.chance(0.7) ? { content: `Key points for ${rng.pick(industry.qualifiers)} buyers.` } : {}),
        created_at: isoTime(created),
        updated_at: isoTime(created + rng.int(20) * DAY_MS),
      });
    }
  }

  const articles: Article[] = [];
  for (let i = 0; i < 24; i++) {
    const created = beforeStart(200);
    const topic = rng.pick(topics);
    const title = `${rng.pick(['The best', 'How to choose', 'Why we love', 'A guide to'])} ${rng.pick(industry.productNouns)} ${rng.pick(industry.qualifiers)}`;
    const status = rng.weighted(ARTICLE_STATUSES, [4, 3, 6, 1]);
    articles.push({
      id: nextId(),
      title,
      slug: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      language: topic.language,
      type: rng.pick(['guide', 'listicle', 'comparison', 'review']),
      version: rng.between(1, 4),
      status,
      generation_status: status === 'in_progress' ? rng.pick(['queued', 'generating']) : rng.weighted(['completed', 'failed'], [9, 1]),
      topic_ids: [topic.id],
      scenario_ids: rng.sample(topic.scenarios, 2).map((s) => s.id),
      created_at: isoTime(created),
      updated_at: isoTime(created + rng.int(30) * DAY_MS),
    });
  }

  const contentAnalyses: ContentAnalysis[] = [];
  for (let i = 0; i < 18; i++) {
    const created = beforeStart(120);
    const kind = rng.weighted(['url', 'article'], [2, 1]);
    const status = rng.weighted(['pending', 'running', 'completed', 'failed'], [2, 1, 6, 1]);
    const topic = rng.pick(topics);
    const article = rng.pick(articles);
    contentAnalyses.push({
      id: nextId(),
      kind,
      status,
      step: status === 'completed' ? 'done' : status === 'pending' ? 'queued' : rng.pick(['fetching', 'analysing', 'scoring']),
      created_at: isoTime(created),
      updated_at: isoTime(created + rng.int(3) * DAY_MS),
      ...(kind === 'article' ? { article_id: article.id, title: article.title } : { url: rng.pick(ownPages).url }),
      ...(rng.chance(0.6) ? { topic_id: topic.id, topic_name: topic.name } : {}),
    });
  }

  const statements: SwotStatement[] = [];
  for (const type of ['strengths', 'weaknesses', 'opportunities', 'threats'] as const) {
    for (const text of rng.sample(SWOT_TEXTS[type]!, 2)) statements.push({ id: nextId(), type, text });
  }

  const phrases = [...industry.productNouns];
  const searches: FanoutSearch[] = [];
  const basisTopics: AnswerBasis['topics'] = [];
  for (const topic of topics) {
    const topicSearches: number[] = [];
    for (let k = 0; k < 10; k++) {
      const noun = rng.pick(industry.productNouns);
      const query = rng
        .pick(['best {noun} {q}', '{noun} {q} reviews', '{brand} {noun}', '{noun} vs {noun2}', 'cheap {noun} {q}', '{noun} buying guide'])
        .replace('{noun}', noun)
        .replace('{noun2}', rng.pick(industry.productNouns))
        .replace('{q}', rng.pick(industry.qualifiers))
        .replace('{brand}', rng.chance(0.5) ? brand.name : rng.pick(competitors).competitor.name);
      const id = nextId();
      searches.push({ id, query, topicId: topic.id });
      topicSearches.push(id);
    }
    if (!topic.deleted) {
      basisTopics.push({
        topic,
        scenarios: [...topic.scenarios],
        engines: topic.answer_engines as Engine[],
        visibility: 0.2 + rng.next() * 0.6,
        searches: topicSearches,
      });
    }
  }

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
