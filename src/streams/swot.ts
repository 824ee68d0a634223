import { z } from 'zod';
import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import { id, optional, pagingInfo, records, timestamp, type SwotType } from '../api/schemas.js';
import { timestampDay } from '../days.js';
import { extraOf } from './extra.js';
import { perWindow } from './slicing.js';
import { defineStream, type SettingsOf, type WindowSlice } from './stream.js';
import { sliceRange, windowColumns, windowDays } from './windows.js';

export const swotAnswerSchema = z.looseObject({
  conversation_id: id,
  date: timestamp,
  text: z.string(),
  model: optional(z.string()),
});

export const swotEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({
    ...pagingInfo,
    type: optional(z.string()),
    statement: optional(
      z.looseObject({ id: optional(id), text: optional(z.string()), mentions: optional(z.unknown()) }),
    ),
  }),
});

export type SwotAnswer = z.infer<typeof swotAnswerSchema>;

export interface SwotAnswersOptions extends RangeFilter, EngineFilter {
  statementId: number;
  competitors?: ReadonlyArray<string | number>;
  type?: SwotType;
}

export const swotAnswersEndpoint = defineEndpoint({
  name: 'swot/{statement_id}',
  path: (o: SwotAnswersOptions) => ['swot', o.statementId],
  params: [...RANGE_PARAMS, 'competitors', 'type'],
  query: (o: SwotAnswersOptions) => ({ ...rangeQuery(o), competitors: o.competitors, type: o.type }),
  envelope: swotEnvelopeSchema,
  record: swotAnswerSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

const settings = {
  /**
   * SWOT statement ids to sync answers of, per brand id (the API has no list of them, and an id belongs to one
   * brand), e.g. `{ "7": [70012, 70013] }`.
   */
  swotStatementIds: z
    .record(z.string().regex(/^[1-9]\d*$/, 'a brand id'), z.array(z.number().int().positive()))
    .default({}),
};

// optional() in the schemas is nullish(): two wrappers around the statement's object schema.
const statementSchema = swotEnvelopeSchema.shape.info.shape.statement.unwrap().unwrap();

/** An answer with the SWOT type its page's `info.type` gives, since the answer itself does not carry it. */
export interface TypedSwotAnswer {
  answer: SwotAnswer;
  type: string | null;
}

/**
 * The statement ids configured for a brand. A statement belongs to one brand, so the config lists them per brand id;
 * a plain list (the first form of the config) applies to every brand.
 */
function statementIdsOf(sync: SettingsOf<typeof settings>, brandId: number): number[] {
  const configured: unknown = sync.swotStatementIds;
  if (Array.isArray(configured)) return configured as number[];
  return (configured as Record<string, number[] | undefined>)[String(brandId)] ?? [];
}

/**
 * The answers behind a SWOT statement (spec endpoint 20), per id of `sync.swotStatementIds`, brand and run window: a
 * window's answers replace those of its days. The statement itself is merged from the page's `info`.
 */
export const swot = defineStream({
  name: 'swot',
  endpoint: swotAnswersEndpoint,
  settings,
  unconfigured: (sync, brandId) =>
    statementIdsOf(sync, brandId).length
      ? undefined
      : 'sync.swotStatementIds names none of its SWOT statements (the API lists none: take their ids from the app)',
  slices: (input): Array<WindowSlice<{ statementId: number }>> =>
    [...new Set(statementIdsOf(input.sync, input.brandId))].flatMap((statementId) =>
      perWindow(input, { statementId }, `statement-${statementId}/`),
    ),
  targets: ({ brandId, slice }) => [
    {
      table: 'swot_answers',
      mode: 'replace',
      scope: { brand_id: brandId, statement_id: slice.params.statementId, day: windowDays(slice) },
    },
    { table: 'swot_statements', mode: 'merge' },
  ],
  read: async function* ({ client, brandId, slice, signal }) {
    for await (const page of client.read(swotAnswersEndpoint, brandId, {
      statementId: slice.params.statementId,
      ...sliceRange(slice),
      signal,
    })) {
      const type = page.info.type ?? null;
      yield { ...page, records: page.records.map((answer) => ({ answer, type })) };
    }
  },
  recordId: ({ answer }: TypedSwotAnswer) => answer.conversation_id,
  rows: ({ answer, type }, { brandId, slice }) => ({
    swot_answers: [
      {
        brand_id: brandId,
        statement_id: slice.params.statementId,
        conversation_id: answer.conversation_id,
        date: answer.date,
        day: timestampDay(answer.date),
        text: answer.text,
        model: answer.model ?? null,
        type,
        _extra: extraOf(swotAnswerSchema, answer),
      },
    ],
  }),
  infoRows: (page, { brandId, slice }) => {
    const info = page.info as z.infer<typeof swotEnvelopeSchema>['info'];
    const mentions = info.statement?.mentions;
    const statementExtra = info.statement ? extraOf(statementSchema, info.statement) : null;
    return {
      swot_statements: [
        {
          brand_id: brandId,
          statement_id: slice.params.statementId,
          type: info.type ?? null,
          text: info.statement?.text ?? null,
          mentions: typeof mentions === 'number' ? mentions : null,
          // The window the count covers: the row is merged by statement, so the last window read is what it holds.
          ...windowColumns(slice),
          // mentions of an unexpected shape is kept rather than dropped.
          _extra: typeof mentions === 'number' || mentions == null ? statementExtra : { ...statementExtra, mentions },
        },
      ],
    };
  },
});
