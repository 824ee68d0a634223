import { citationsFamily } from './citations-family.js';
import { conversationsFamily } from './conversations-family.js';
import type { FigureFamily } from './figure.js';
import { productRankingFamily } from './product-ranking-family.js';
import { trackedUrlsFamily } from './tracked-urls-family.js';
import { visibilityFamily } from './visibility-family.js';

/** Every family `verify` compares, in the order it prints them; one API range request (plus pages) each. */
export const FIGURE_FAMILIES: readonly FigureFamily[] = [conversationsFamily, visibilityFamily, trackedUrlsFamily, citationsFamily, productRankingFamily];
