import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badDataScenario, cleanReference, type BadDataOutcome, type Reference } from './scenarios.js';

/**
 * A backfill where 5 % of records are invalid (wrong types, missing ids, bad dates), 10 % carry fields the spec does
 * not list and 10 % enum values it does not list: every invalid record is quarantined with its reason and raw JSON,
 * every valid one is loaded as the clean run loaded it, unknown fields are kept in `_extra`, and the summary counts
 * the rejects.
 */

let reference: Reference;
let outcome: BadDataOutcome;
beforeAll(async () => {
  reference = await cleanReference();
  outcome = await badDataScenario(reference);
}, 120_000);
afterAll(async () => reference?.fx.cleanup());

describe('records that drift from the spec', () => {
  it('quarantines every invalid record with its reason and raw JSON, and the summary counts them', () => {
    expect(outcome.status).toBe('complete');
    expect(outcome.rejected).toBeGreaterThan(0);
    expect(outcome.rejectsWithoutReason).toBe(0);
    expect(outcome.summaryRejects).toBe(outcome.rejected);
  });

  it('loads every valid record: loaded plus rejected is what the clean run loaded, and nothing else', () => {
    expect(outcome.conversations.rejected).toBeGreaterThan(0);
    expect(outcome.conversations.loaded + outcome.conversations.rejected).toBe(outcome.conversations.clean);
    expect(outcome.conversations.notInClean).toBe(0);
  });

  it('keeps unknown fields in _extra and unknown enum values as they came', () => {
    expect(outcome.withExtra).toBeGreaterThan(0);
    expect(outcome.unlistedEnums).toBeGreaterThan(0);
    expect(outcome.problems).toEqual([]);
  });
});
