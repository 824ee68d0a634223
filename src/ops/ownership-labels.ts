import { OWNERSHIP_VALUES } from '../api/schemas.js';

// The spec lists the values only ("Enumerations"); this is how the report spells them for people.
const LABELS: Record<(typeof OWNERSHIP_VALUES)[number], string> = {
  first_party: 'First party',
  competitor_owned: 'Competitor owned',
  third_party_editorial: 'Third-party editorial',
  industry_trade_publication: 'Industry / trade publication',
  government_regulatory: 'Government / regulatory',
  academic_research: 'Academic / research',
  aggregator_marketplace: 'Aggregator / marketplace',
  social_ugc_platform: 'Social / UGC platform',
  other: 'Other',
};

/** Readable text of an ownership value; a value the spec does not list (kept, per the spec) is de-snake-cased. */
export function ownershipLabel(value: string): string {
  const known = (LABELS as Record<string, string>)[value];
  if (known) return known;
  const words = value.replace(/_+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : '(none)';
}

/**
 * The one order ownerships are stacked and listed in, for every brand: the spec's order, then values it does not
 * list, alphabetically. Returns the values given, sorted.
 */
export function sortOwnerships(values: Iterable<string>): string[] {
  const rank = (value: string) => {
    const index = (OWNERSHIP_VALUES as readonly string[]).indexOf(value);
    return index === -1 ? OWNERSHIP_VALUES.length : index;
  };
  return [...new Set(values)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Every ownership the spec lists, in the report's order (fixed colours are assigned by this index). */
export const OWNERSHIP_ORDER: readonly string[] = OWNERSHIP_VALUES;
