import { articlesRoute, competitorsRoute, contentAnalysesRoute, templatesRoute } from './catalog.js';
import { conversationsRoute } from './conversations.js';
import { fanoutsByPhraseRoute, fanoutsCitedRoute, swotRoute } from './fanouts-swot.js';
import { citationsRoute, domainDetailRoute, productRankingRoute, visibilityRoute } from './reports.js';
import type { Route } from './route.js';
import { trackedUrlsRoute } from './tracked-urls-read.js';
import { writeRoutes } from './writes.js';

/** Every endpoint of the spec, by its path under /customer/v1/brands/{brand_id}. */
export const ROUTES: Route[] = [
  trackedUrlsRoute,
  competitorsRoute,
  templatesRoute,
  articlesRoute,
  contentAnalysesRoute,
  conversationsRoute,
  fanoutsByPhraseRoute,
  fanoutsCitedRoute,
  visibilityRoute,
  citationsRoute,
  domainDetailRoute,
  productRankingRoute,
  swotRoute,
  ...writeRoutes,
];
