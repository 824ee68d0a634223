import { z } from 'zod';
import { infoCount, optional } from '../schemas.js';

/*
 * What the write endpoints answer (spec, "Bulk write envelope", endpoints 1, 2, 4 to 9), read loosely: unnamed fields
 * pass through, and only the fields `plan` and `apply` report on are required.
 */

const id = z.int();

/** One item of `rejected[]`; `code` is one of not_found, conflict, plan_limit_reached, kept open for codes the spec does not list. */
export const bulkRejectionSchema = z.looseObject({
  index: z.int().nonnegative(),
  code: z.string(),
  message: z.string().nullish(),
});

const bulkInfoSchema = z.looseObject({
  dry_run: z.boolean().nullish(),
  written: z.int().nullish(),
  rejected: z.int().nullish(),
});

/** The bulk write envelope shared by endpoints 1, 4 and 6. */
export function bulkEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    info: bulkInfoSchema,
    rejected: z.array(bulkRejectionSchema).nullish(),
  });
}

/**
 * The answer of a bulk dry run, as `plan` needs it: `info` and `rejected`. Its items, if any, are not read: nothing was
 * created, so an API may give them `id: null`, no id, `id: 0`, or leave `data` out (test/manage/dry-run-shapes.int.test.ts).
 */
export const dryRunEnvelopeSchema = z.looseObject({
  data: z.array(z.unknown()).nullish(),
  info: bulkInfoSchema,
  rejected: z.array(bulkRejectionSchema).nullish(),
});

export const writtenTrackedUrlSchema = z.looseObject({
  id,
  url: z.string(),
  title: z.string().nullish(),
  group: z.looseObject({ id, name: z.string().nullish() }).nullish(),
});

export const writtenTopicSchema = z.looseObject({
  id,
  name: z.string(),
  type: z.string().nullish(),
  language: z.string().nullish(),
  scenarios: z.array(z.looseObject({ id, text: z.string() })).nullish(),
});

export const writtenCompetitorSchema = z.looseObject({
  id,
  name: z.string(),
  website: z.string().nullish(),
  is_actual: z.boolean().nullish(),
});

export const writtenPersonaSchema = z.looseObject({ id, name: z.string().nullish() });

export const writtenTagSchema = z.looseObject({ id, name: z.string().nullish(), color: z.string().nullish() });

/** The competitors read (endpoint 7). */
export const competitorsAnswerSchema = z.looseObject({
  data: z.array(z.unknown()),
  info: z.looseObject({ total_rows: optional(infoCount) }).nullish(),
});

export type BulkRejection = z.infer<typeof bulkRejectionSchema>;
export type WrittenTrackedUrl = z.infer<typeof writtenTrackedUrlSchema>;
export type WrittenTopic = z.infer<typeof writtenTopicSchema>;
export type WrittenCompetitor = z.infer<typeof writtenCompetitorSchema>;
export type WrittenPersona = z.infer<typeof writtenPersonaSchema>;
export type WrittenTag = z.infer<typeof writtenTagSchema>;

/** The bulk write envelope with its items validated. */
export interface BulkAnswer<T> {
  /** The items written; empty for a dry run, whose items are not read. */
  data: T[];
  dryRun: boolean;
  written: number;
  rejected: BulkRejection[];
}
