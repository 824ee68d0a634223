// The shared schemas of src/api/schemas.ts and every stream's record schemas, for the tests that check them all.
export * from '../../src/api/schemas.js';
export * from './spec-resources.js';
export { articleSchema, articlesEnvelopeSchema } from '../../src/streams/articles.js';
export {
  citationSeriesRowSchema,
  citationsEnvelopeSchema,
  ownershipSummaryEntrySchema,
} from '../../src/streams/citations.js';
export { competitorSchema } from '../../src/streams/competitors.js';
export { contentAnalysisSchema } from '../../src/streams/content-analyses.js';
export { conversationBrandSchema, conversationSchema } from '../../src/streams/conversations.js';
export { domainDetailEnvelopeSchema, domainDetailSchema } from '../../src/streams/domain-details.js';
export { fanoutByPhraseSchema } from '../../src/streams/fanouts-by-phrase.js';
export { fanoutCitedSchema } from '../../src/streams/fanout-cited-record.js';
export { productRankingEnvelopeSchema, productRankingRowSchema } from '../../src/streams/product-ranking.js';
export { swotAnswerSchema, swotEnvelopeSchema } from '../../src/streams/swot.js';
export { templateSchema } from '../../src/streams/templates.js';
export { trackedUrlSchema, trackedUrlsEnvelopeSchema } from '../../src/streams/tracked-urls.js';
export {
  visibilityBrandSchema,
  visibilityEnvelopeSchema,
  visibilityRowSchema,
  visibilityScenarioSchema,
} from '../../src/streams/visibility.js';
