import { citationsFamily } from './citations-family.js';
import { conversationsFamily } from './conversations-family.js';
import type { FigureFamily } from './figure.js';
import { productRankingFamily } from './product-ranking-family.js';
import { trackedUrlsFamily } from './tracked-urls-family.js';
import { visibilityEngineFamily } from './visibility-engine-family.js';
import { visibilityFamily } from './visibility-family.js';

/**
 * Every family `verify` compares, in the order it prints them; one API range request (plus pages) each, and one per
 * engine for the per-engine visibility, when the warehouse has it.
 */
export const FIGURE_FAMILIES: readonly FigureFamily[] = [
  conversationsFamily,
  visibilityFamily,
  visibilityEngineFamily,
  trackedUrlsFamily,
  citationsFamily,
  productRankingFamily,
];
