import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { OWNERSHIP_VALUES, SWOT_TYPE_VALUES } from '../../src/simulator/spec-enums.js';
import { client, TODAY } from './client.js';

/** Strict schemas of the spec's resources: a field the spec does not list, or a missing one, fails. */
const timestamp = z.iso.datetime();
const day = z.iso.date();
const int = z.number().int();
const paged = z.object({ page: int, page_size: int, total_rows: int }).strict();

const SHAPES: Array<[string, string, Record<string, string | string[]>, z.ZodType]> = [
  [
    'citations (17)',
    '/reports/citations',
    { domains: ['reddit.com'] },
    z
      .object({
        data: z.array(
          z.object({ date: day, occurrences: int, change: z.number(), domain: z.string().optional() }).strict(),
        ),
        info: z
          .object({
            query: z.record(z.string(), z.unknown()),
            total_rows: int,
            summary: z
              .object({
                occurrences: int,
                by_ownership: z.array(
                  z
                    .object({
                      label: z.string(),
                      ownership: z.enum(OWNERSHIP_VALUES),
                      occurrences: int,
                      share: z.number(),
                    })
                    .strict(),
                ),
              })
              .strict(),
          })
          .strict(),
      })
      .strict(),
  ],
  [
    'domain detail (18)',
    '/citations/domains/wikipedia.org',
    {},
    z
      .object({
        data: z
          .object({
            domain: z.string(),
            is_first_party: z.boolean(),
            occurrences: int,
            by_model: z.array(z.object({ model: z.string(), occurrences: int }).strict()),
            by_scenario: z.array(z.object({ scenario_id: int, text: z.string(), occurrences: int }).strict()),
            by_topic: z.array(z.object({ topic_id: int, name: z.string(), occurrences: int }).strict()),
            over_time: z.array(z.object({ date: day, occurrences: int, cited_occurrences: int }).strict()),
          })
          .strict(),
        info: z.object({ query: z.record(z.string(), z.unknown()) }).strict(),
      })
      .strict(),
  ],
  [
    'product ranking (19)',
    '/products/ranking',
    {},
    z
      .object({
        data: z.array(
          z
            .object({
              id: int,
              rank: int,
              label: z.string(),
              title: z.string(),
              category: z.string().optional(),
              price: z.string().optional(),
              rating: z.number().optional(),
              reviews: int.optional(),
              visibility: z.number().optional(),
              recommendation: z.number().optional(),
              image_url: z.string().optional(),
              confidence_interval: z.object({ lower: z.number(), upper: z.number() }).strict().optional(),
            })
            .strict(),
        ),
        info: paged.extend({ shopping_conversations: int }).strict(),
      })
      .strict(),
  ],
  [
    'competitors (7)',
    '/competitors',
    { confirmed: 'false' },
    z
      .object({
        data: z.array(z.object({ id: int, name: z.string(), website: z.string(), is_actual: z.boolean() }).strict()),
        info: z.object({ total_rows: int }).strict(),
      })
      .strict(),
  ],
  [
    'templates (10)',
    '/templates',
    {},
    z
      .object({
        data: z.array(
          z
            .object({
              id: int,
              title: z.string(),
              type: z.enum(['brief', 'article']),
              article_type: z.string().optional(),
              content: z.string().optional(),
              created_at: timestamp,
              updated_at: timestamp,
            })
            .strict(),
        ),
        info: paged,
      })
      .strict(),
  ],
  [
    'articles (11)',
    '/articles',
    {},
    z
      .object({
        data: z.array(
          z
            .object({
              id: int,
              title: z.string().optional(),
              slug: z.string().optional(),
              language: z.string().optional(),
              type: z.string().optional(),
              version: int.optional(),
              status: z.string(),
              generation_status: z.string(),
              topic_ids: z.array(int).optional(),
              scenario_ids: z.array(int).optional(),
              created_at: timestamp,
              updated_at: timestamp,
            })
            .strict(),
        ),
        info: paged.extend({ draft: int, in_progress: int, published: int }).strict(),
      })
      .strict(),
  ],
  [
    'content analyses (12)',
    '/content-analyses',
    {},
    z
      .object({
        data: z.array(
          z
            .object({
              id: int,
              kind: z.string(),
              status: z.string(),
              step: z.string(),
              created_at: timestamp,
              updated_at: timestamp,
              article_id: int.optional(),
              title: z.string().optional(),
              topic_id: int.optional(),
              topic_name: z.string().optional(),
              url: z.string().optional(),
            })
            .strict(),
        ),
        info: z.object({ total_rows: int }).strict(),
      })
      .strict(),
  ],
  [
    'fanouts by phrase (14)',
    '/fanouts/by-phrase',
    { phrase: 'e' },
    z.object({ data: z.array(z.object({ id: int, query: z.string() }).strict()), info: paged }).strict(),
  ],
  [
    'fanouts cited (15)',
    '/fanouts/cited',
    { domain: 'reddit.com' },
    z
      .object({
        data: z.array(z.object({ id: int, query: z.string(), conversations: int, relevance: z.number() }).strict()),
        info: paged,
      })
      .strict(),
  ],
];

let sim: RunningSimulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sim = await startSimulator({ today: TODAY, scale: 40 });
  api = client(sim, 1);
});
afterAll(() => sim.close());

describe('shapes of every remaining endpoint', () => {
  for (const [name, path, query, schema] of SHAPES) {
    it(name, async () => {
      const reply = await api.get(path, query);
      expect(reply.status).toBe(200);
      schema.parse(reply.body);
      const data = (reply.body as { data: unknown }).data;
      if (Array.isArray(data)) expect(data.length).toBeGreaterThan(0);
    });
  }

  it('SWOT answers (20)', async () => {
    const statement = sim.truth.world(1).swotStatements[0]!;
    const reply = await api.get(`/swot/${statement.id}`);
    z.object({
      data: z.array(
        z.object({ conversation_id: int, date: timestamp, text: z.string(), model: z.string().optional() }).strict(),
      ),
      info: paged
        .extend({
          type: z.enum(SWOT_TYPE_VALUES),
          statement: z.object({ id: int, text: z.string(), mentions: int }).strict(),
        })
        .strict(),
    })
      .strict()
      .parse(reply.body);
  });

  it('the bulk write envelope (1, 4, 6) and single records (2, 5, 8, 9)', async () => {
    const bulk = z
      .object({
        data: z.array(z.unknown()),
        info: z.object({ dry_run: z.boolean(), written: int, rejected: int }).strict(),
        rejected: z.array(
          z
            .object({ index: int, code: z.enum(['not_found', 'conflict', 'plan_limit_reached']), message: z.string() })
            .strict(),
        ),
      })
      .strict();
    bulk.parse(
      (await api.send('POST', '/tracked-urls', { urls: [{ url: 'https://shape.example/a' }], dry_run: true })).body,
    );
    bulk.parse((await api.send('POST', '/topics', { topics: [{ name: 'Shape' }], dry_run: true })).body);
    bulk.parse(
      (
        await api.send('POST', '/competitors', {
          competitors: [{ name: 'Shape Co', website: 'shape.example' }],
          dry_run: true,
        })
      ).body,
    );
    const topic = z
      .object({
        id: int,
        name: z.string(),
        language: z.string(),
        type: z.string(),
        status: z.string(),
        created_at: timestamp,
        answer_engines: z.array(z.string()).optional(),
        persona_id: int.optional(),
        scenarios: z
          .array(
            z.object({ id: int, topic_id: int, text: z.string(), status: z.string(), created_at: timestamp }).strict(),
          )
          .optional(),
        tags: z
          .array(z.object({ id: int, name: z.string(), color: z.string().regex(/^#[0-9a-f]{6}$/i) }).strict())
          .optional(),
      })
      .strict();
    const deleted = sim.truth.world(1).topics.find((t) => t.deleted)!;
    topic.parse((await api.send('POST', `/topics/${deleted.id}/restore`)).body);
    const persona = sim.truth.world(1).personas[1]!;
    z.object({
      id: int,
      name: z.string(),
      description: z.string(),
      city: z.string().optional(),
      country: z.string().optional(),
      properties: z.record(z.string(), z.unknown()).optional(),
    })
      .strict()
      .parse((await api.send('PATCH', `/personas/${persona.id}`, { description: 'Shape' })).body);
  });
});
