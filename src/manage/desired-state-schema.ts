import { z } from 'zod';
import { SCENARIOS_PER_TOPIC } from '../api/writes/writes.js';

/*
 * The file `bvsync plan` and `bvsync apply` read: what one brand should have (docs/managing.md). It only adds and
 * changes, as no endpoint deletes a page, topic or competitor: what the file leaves out is left as it is.
 */

const id = z.int().positive();

export const trackedUrlEntrySchema = z
  .object({
    /** The page's address; compared with the brand's in the spec's normal form (a trailing slash does not count). */
    url: z.string().min(1),
    /** The title to give the page; default: the API takes the page's own title, and a later change is not compared. */
    title: z.string().min(1).optional(),
    /** The id of the group to put the page in; null takes it out of its group; default: left as it is. */
    group: id.nullable().optional(),
  })
  .strict();

export const topicEntrySchema = z
  .object({
    name: z.string().min(1),
    /** Default `prompter`, the spec's example (its other values are not shown). */
    type: z.string().min(1).default('prompter'),
    /** Default `english`, the spec's example (its other values are not shown). */
    language: z.string().min(1).default('english'),
    /** Default `active`, the spec's example. */
    status: z.string().min(1).default('active'),
    /** Engine identifiers that run the topic; default none (an empty list, as in the spec's example). */
    engines: z.array(z.string().min(1)).default([]),
    /** The id of the persona whose questions the scenarios ask; default none sent. */
    persona: id.optional(),
    /** The scenario texts, up to 100 (spec, "Limits"). */
    scenarios: z.array(z.string().min(1)).max(SCENARIOS_PER_TOPIC).default([]),
    /**
     * A deleted topic's id to restore (endpoint 5), with scenarios and history, instead of creating a new one. The API
     * lists no deleted topics, so the file names it; the warehouse's `topics` table holds the ids it has seen.
     */
    restore: id.optional(),
  })
  .strict();

export const competitorEntrySchema = z
  .object({
    /** Compared without regard to case; a suggestion of the platform with this name becomes tracked, with its history. */
    name: z.string().min(1),
    website: z.string().min(1),
  })
  .strict();

export const personaChangeSchema = z
  .object({
    id,
    name: z.string().optional(),
    description: z.string().optional(),
    city: z.string().optional(),
    country: z.string().optional(),
    /** Each section given replaces that section of the persona; the others stay (endpoint 8). */
    properties: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((change) => Object.keys(change).length > 1, {
    error: 'names no field to change: give name, description, city, country or properties',
  });

export const tagChangeSchema = z
  .object({
    id,
    name: z.string().min(1).optional(),
    /** A hex colour, `#rrggbb` (spec, "Tag"). */
    color: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'expected a hex colour #rrggbb, e.g. #1f77b4')
      .optional(),
  })
  .strict()
  .refine((change) => change.name !== undefined || change.color !== undefined, {
    error: 'names no field to change: give name or color',
  });

export const desiredStateSchema = z
  .object({
    /** The brand this file is for. */
    brand: id,
    trackedUrls: z.array(trackedUrlEntrySchema).default([]),
    topics: z.array(topicEntrySchema).default([]),
    competitors: z.array(competitorEntrySchema).default([]),
    /** Changes to personas; the API has no read of personas, so each is sent as given (docs/managing.md). */
    personas: z.array(personaChangeSchema).default([]),
    /** Changes to tags; the API has no read of tags, so each is sent as given. */
    tags: z.array(tagChangeSchema).default([]),
  })
  .strict();

export type DesiredState = z.infer<typeof desiredStateSchema>;
export type TrackedUrlEntry = z.infer<typeof trackedUrlEntrySchema>;
export type TopicEntry = z.infer<typeof topicEntrySchema>;

/** The JSON Schema of the file, for editors (`bvsync manage-schema`). */
export function desiredStateJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(desiredStateSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'bvsync desired state of a brand',
  };
}
