import { describe, expect, it } from 'vitest';
import { AnswerStore } from '../../src/simulator/world/answers.js';
import { conversationJson, conversationRecord } from '../../src/simulator/routes/conversation-record.js';
import { parseSimDay } from '../../src/simulator/sim-days.js';
import { generateWorld } from '../../src/simulator/world/world.js';

describe('conversation record', () => {
  it('is written straight to JSON with the same bytes as JSON.stringify of the record', () => {
    const today = parseSimDay('2026-11-20')!;
    const world = generateWorld({ seed: 9, brandId: 2, firstDay: today - 5, hasTemplates: true });
    const store = new AnswerStore({
      seed: 9,
      scale: 2_000,
      firstDay: today - 5,
      world: () => world,
      today: () => today,
      late: () => ({ share: 0, days: 1 }),
    });
    const answers = store.generatedDay(2, today - 1);
    expect(answers.length).toBeGreaterThan(1_000);
    for (const answer of answers)
      expect(conversationJson(answer, world)).toBe(JSON.stringify(conversationRecord(answer, world)));
  });
});
