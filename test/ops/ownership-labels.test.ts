import { describe, expect, it } from 'vitest';
import { ownershipLabel, OWNERSHIP_ORDER, sortOwnerships } from '../../src/ops/ownership-labels.js';

describe('ownership labels and order', () => {
  it('reads as text for people, also for a value the spec does not list', () => {
    expect(ownershipLabel('third_party_editorial')).toBe('Third-party editorial');
    expect(ownershipLabel('social_ugc_platform')).toBe('Social / UGC platform');
    expect(ownershipLabel('brand_new_kind')).toBe('Brand new kind');
    for (const value of OWNERSHIP_ORDER) expect(ownershipLabel(value)).not.toContain('_');
  });

  it("sorts in the spec's order whatever order the rows came in, unknown values last", () => {
    expect(
      sortOwnerships(['other', 'zeta_kind', 'first_party', 'third_party_editorial', 'alpha_kind', 'first_party']),
    ).toEqual(['first_party', 'third_party_editorial', 'other', 'alpha_kind', 'zeta_kind']);
  });
});
