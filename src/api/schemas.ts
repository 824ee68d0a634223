import { z } from 'zod';

/*
 * The spec's resources and envelopes. Objects are loose (unnamed fields go to `_extra`); listed enums are typed as
 * strings, as unlisted values must be kept. Optional fields may be absent or null.
 */

export const id = z.int();
export const count = z.int().nonnegative();
export const timestamp = z.string().transform((text, context) => {
  const canonical = canonicalTimestamp(text);
  if (canonical === undefined) {
    context.addIssue({ code: 'custom', message: 'Invalid ISO 8601 datetime', input: text });
    return z.NEVER;
  }
  return canonical;
});
export const day = z.iso.date();

/**
 * Timestamps, "ISO 8601 datetimes in UTC" of no stated form: every ISO 8601/RFC 3339 form becomes
 * `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; undefined for anything else or an impossible date.
 */
const TIMESTAMP_FORM =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})([.,]\d+)?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const BASIC_TIMESTAMP_FORM =
  /^(\d{4})(\d{2})(\d{2})[Tt](\d{2})(\d{2})(?:(\d{2})([.,]\d+)?)?(Z|z|[+-]\d{2}(?:\d{2})?)?$/;

export function canonicalTimestamp(text: string): string | undefined {
  const match = TIMESTAMP_FORM.exec(text) ?? BASIC_TIMESTAMP_FORM.exec(text);
  if (!match) return undefined;
  const [, year, month, dayOfMonth, hour, minute, second = '00', fraction = '', zone] = match;
  const [y, mo, d, h, mi, se] = [year, month, dayOfMonth, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || se > 59) return undefined;
  let offset = 'Z';
  if (zone && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    if (Number(digits.slice(0, 2)) > 23 || Number(digits.slice(2) || '0') > 59) return undefined;
    offset = `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`;
  }
  return `${year}-${month}-${dayOfMonth}T${hour}:${minute}:${second}${fraction.replace(',', '.')}${offset}`;
}

export const ratio = z.number().min(0).max(1);
export const optional = <T extends z.ZodType>(schema: T) => schema.nullish();

/** Enumerations of the spec ("Enumerations"); received values outside these lists are kept. */
export const OWNERSHIP_VALUES = [
  'first_party',
  'competitor_owned',
  'third_party_editorial',
  'industry_trade_publication',
  'government_regulatory',
  'academic_research',
  'aggregator_marketplace',
  'social_ugc_platform',
  'other',
] as const;
export const CONTENT_TYPE_VALUES = [
  'blog_article',
  'product_service_page',
  'review_editorial',
  'review_user_generated',
  'comparison_vs_page',
  'listicle_best_of',
  'news_article',
  'press_release',
  'advertorial',
  'documentation_knowledge_base',
  'case_study',
  'research_paper_report',
  'forum_thread_qa',
  'social_media_post',
  'video',
  'podcast_transcript',
  'wikipedia_encyclopedia',
  'other',
] as const;
export const SENTIMENT_VALUES = ['positive', 'neutral', 'negative'] as const;
export const PERIOD_VALUES = ['day', 'week', 'month'] as const;
export const SWOT_TYPE_VALUES = ['strengths', 'weaknesses', 'opportunities', 'threats'] as const;
export const TEMPLATE_TYPE_VALUES = ['brief', 'article'] as const;
export const BULK_REJECTION_CODES = ['not_found', 'conflict', 'plan_limit_reached'] as const;

/** A string enum that also takes values the spec does not list (typed for editors, open at run time). */
export function openEnum<const T extends readonly string[]>(_known: T) {
  return z.string() as unknown as z.ZodType<T[number] | (string & {})>;
}

export type Ownership = (typeof OWNERSHIP_VALUES)[number] | (string & {});
export type ContentType = (typeof CONTENT_TYPE_VALUES)[number] | (string & {});
export type Sentiment = (typeof SENTIMENT_VALUES)[number] | (string & {});
export type Period = (typeof PERIOD_VALUES)[number];
export type SwotType = (typeof SWOT_TYPE_VALUES)[number];
export type TemplateType = (typeof TEMPLATE_TYPE_VALUES)[number];

export const confidenceInterval = z.looseObject({ lower: z.number(), upper: z.number() });

// Envelopes of the read endpoints. Records are validated one by one afterwards, so `data` is unknown[] here.
export const records = z.array(z.unknown());
/** A counter of an answer's `info`: the spec gives it no type, so a string of digits reads as its number. */
export const infoCount = z.union([
  count,
  z
    .string()
    .regex(/^\d{1,15}$/, 'a count')
    .transform(Number),
]);
const infoPosition = infoCount.refine((value) => value > 0, 'a positive count');
// A page number may be 0: an API may count its pages from 0 (`api.firstPage`), and paginate compares it with the page asked.
export const pagingInfo = {
  page: optional(infoCount),
  page_size: optional(infoPosition),
  total_rows: optional(infoCount),
};
export const queryEcho = optional(z.record(z.string(), z.unknown()));

export const pagedEnvelopeSchema = z.looseObject({ data: records, info: z.looseObject(pagingInfo) });
