import { z } from 'zod';
import { id, optional, timestamp } from '../../src/api/schemas.js';

// Spec resources no stream reads (writes read their answers with src/api/writes/write-schemas.ts), and the error
// envelope (src/api/errors.ts reads it field by field): here for the schema tests and the openapi contract test.

export const scenarioSchema = z.looseObject({
  id,
  topic_id: id,
  text: z.string(),
  status: z.string(),
  created_at: timestamp,
});

export const tagSchema = z.looseObject({ id, name: z.string(), color: z.string() });

export const topicSchema = z.looseObject({
  id,
  name: z.string(),
  language: z.string(),
  type: z.string(),
  status: z.string(),
  created_at: timestamp,
  answer_engines: optional(z.array(z.string())),
  persona_id: optional(id),
  scenarios: optional(z.array(scenarioSchema)),
  tags: optional(z.array(tagSchema)),
});

export const personaSchema = z.looseObject({
  id,
  name: z.string(),
  description: z.string(),
  city: optional(z.string()),
  country: optional(z.string()),
  properties: optional(z.record(z.string(), z.unknown())),
});

export const errorEnvelopeSchema = z.looseObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    details: optional(z.array(z.looseObject({ field: z.string(), message: z.string() }))),
    request_id: optional(z.string()),
  }),
});
