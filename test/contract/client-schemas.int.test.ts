import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as s from '../support/all-schemas.js';
import { loadOpenApiDocument } from './openapi-document.js';

/**
 * docs/openapi.yaml claims to be the API as bvsync reads it; src/api/schemas.ts is what bvsync reads with. The two
 * must name the same fields, require the same ones and list the same enum values, or one of them is wrong.
 */

const doc = loadOpenApiDocument();
const components = (
  doc.raw.components as {
    schemas: Record<string, { properties?: Record<string, unknown>; required?: string[]; enum?: string[] }>;
  }
).schemas;

const RESOURCES: Record<string, z.ZodObject<z.ZodRawShape>> = {
  TrackedUrl: s.trackedUrlSchema,
  Scenario: s.scenarioSchema,
  Tag: s.tagSchema,
  Topic: s.topicSchema,
  Competitor: s.competitorSchema,
  Persona: s.personaSchema,
  Template: s.templateSchema,
  Article: s.articleSchema,
  ContentAnalysis: s.contentAnalysisSchema,
  ConversationBrand: s.conversationBrandSchema,
  Conversation: s.conversationSchema,
  ProductRankingRow: s.productRankingRowSchema,
  FanoutByPhrase: s.fanoutByPhraseSchema,
  FanoutCited: s.fanoutCitedSchema,
  SwotAnswer: s.swotAnswerSchema,
  VisibilityBrand: s.visibilityBrandSchema,
  VisibilityScenario: s.visibilityScenarioSchema,
  VisibilityRow: s.visibilityRowSchema,
  CitationSeriesRow: s.citationSeriesRowSchema,
  OwnershipSummaryEntry: s.ownershipSummaryEntrySchema,
  DomainDetail: s.domainDetailSchema,
};

const ENUMS: Record<string, readonly string[]> = {
  Ownership: s.OWNERSHIP_VALUES,
  ContentType: s.CONTENT_TYPE_VALUES,
  Sentiment: s.SENTIMENT_VALUES,
  Period: s.PERIOD_VALUES,
  SwotType: s.SWOT_TYPE_VALUES,
  TemplateType: s.TEMPLATE_TYPE_VALUES,
  BulkRejectionCode: s.BULK_REJECTION_CODES,
};

describe('docs/openapi.yaml and src/api/schemas.ts read the API the same way', () => {
  it.each(Object.keys(RESOURCES))('%s: the same fields, the same ones required', (name) => {
    const documented = components[name]!;
    const shape = RESOURCES[name]!.shape;
    expect(Object.keys(shape).sort()).toEqual(Object.keys(documented.properties ?? {}).sort());
    const required = Object.keys(shape).filter((field) => !z.safeParse(shape[field]!, undefined).success);
    expect(required.sort()).toEqual([...(documented.required ?? [])].sort());
  });

  it.each(Object.keys(ENUMS))('%s: the same values', (name) => {
    expect([...ENUMS[name]!]).toEqual(components[name]!.enum);
  });
});
