import type { Engine } from './engines.js';
import type { Random } from './random.js';
import type { ContentType, Ownership, SwotType } from '../spec-enums.js';
import type { Industry } from './word-lists.js';

/**
 * One brand's catalog: everything that is not a daily answer, generated once from (seed, brand) and changed in place
 * by the writes. Answers come from `basis`, a snapshot taken before any write, so a write never rewrites history.
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

/**
 * What every part of a brand's generation shares. The parts draw from one random stream in a fixed order
 * (world.ts), so a seed and a brand id always give the same world, and ids are numbered in the same order.
 */
export interface WorldDraft {
  rng: Random;
  industry: Industry;
  brand: BrandInfo;
  /** Next id of anything this brand has. */
  nextId: () => number;
  /** A moment up to `maxDays` before the first day: when a catalog item was created. */
  beforeStart: (maxDays: number) => number;
  /** A brand name not yet used in this world (the brand's own, then its competitors'). */
  uniqueName: () => string;
}
