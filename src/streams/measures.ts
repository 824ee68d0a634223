/**
 * How the reports' ratios become columns: the numerator is kept beside each ratio, so the ratio of any window is
 * sum(numerator) / sum(denominator), exactly, instead of an average of daily ratios.
 */

export interface ConfidenceInterval {
  lower: number;
  upper: number;
}

/** The `{lower, upper}` interval of a report as the `ci_lower` / `ci_upper` columns (null when absent). */
export function ciColumns(interval: ConfidenceInterval | null | undefined) {
  return { ci_lower: interval?.lower ?? null, ci_upper: interval?.upper ?? null };
}

/**
 * Answers that mention the brand, recovered from visibility = mentioned / conversations. Rounding undoes the
 * floating point of the division; the API's counts are integers.
 */
export function mentionedConversations(visibility: number, conversations: number): number {
  return Math.round(visibility * conversations);
}

/** The measures every visibility entry shares (topic, scenario, brand of either), as columns. */
export function visibilityMeasures(entry: {
  conversations: number;
  visibility: number;
  change?: number | null;
  confidence_interval?: ConfidenceInterval | null;
  share_of_voice?: number | null;
}) {
  return {
    conversations: entry.conversations,
    mentioned_conversations: mentionedConversations(entry.visibility, entry.conversations),
    visibility: entry.visibility,
    change: entry.change ?? null,
    ...ciColumns(entry.confidence_interval),
    share_of_voice: entry.share_of_voice ?? null,
  };
}
