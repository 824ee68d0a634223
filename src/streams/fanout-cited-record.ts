import { z } from 'zod';
import { count, id } from '../api/schemas.js';
import { extraOf } from './extra.js';

/** A search that led answers to a cited domain or page (spec endpoint 15), whichever of the two it was asked by. */
export const fanoutCitedSchema = z.looseObject({
  id,
  query: z.string(),
  conversations: count,
  relevance: z.number(),
});

export type FanoutCited = z.infer<typeof fanoutCitedSchema>;

/** A search's columns, the same in both tables of endpoint 15. */
export function fanoutCitedColumns(record: FanoutCited) {
  return {
    id: record.id,
    query: record.query,
    conversations: record.conversations,
    relevance: record.relevance,
    _extra: extraOf(fanoutCitedSchema, record),
  };
}
