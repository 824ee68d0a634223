import { describe, expect, it } from 'vitest';
import { valueFingerprint } from '../../src/api/value-fingerprint.js';

const conversation = {
  id: 120776011182,
  date: '2026-11-19T23:59:54.654Z',
  model: 'claude',
  mentioned: false,
  position: null,
  brands: [
    { name: 'Harborline', website: 'harborline.com', position: 1 },
    { name: 'Acme', website: null, position: 2 },
  ],
};

function movedToEnd(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: value, ...rest } = record;
  return { ...rest, [key]: value };
}

describe('valueFingerprint', () => {
  it('is the same for the same content, parsed twice', () => {
    expect(valueFingerprint(JSON.parse(JSON.stringify(conversation)))).toBe(valueFingerprint(conversation));
  });

  it('tells apart a changed value, a changed type, a moved or renamed key and a changed array', () => {
    const variants: unknown[] = [
      { ...conversation, model: 'claudf' },
      { ...conversation, id: 120776011183 },
      { ...conversation, mentioned: true },
      { ...conversation, position: 0 },
      { ...conversation, id: '120776011182' },
      { ...conversation, brands: conversation.brands.slice(1) },
      { ...conversation, brands: [...conversation.brands].reverse() },
      { ...conversation, brands: [{ ...conversation.brands[0], position: '1' }, conversation.brands[1]] },
      { ...conversation, extra: null },
      movedToEnd(conversation, 'model'),
      { ...conversation, position: undefined, positio: null },
      { ...conversation, brands: {} },
      { ...conversation, brands: [] },
    ];
    const prints = new Set([valueFingerprint(conversation), ...variants.map(valueFingerprint)]);
    expect(prints.size).toBe(variants.length + 1);
  });

  it('tells apart values whose texts differ only where a string ends (a string spelling what follows it)', () => {
    const pairs: Array<[unknown, unknown]> = [
      [
        { id: 7, tags: ['x', 'y'] },
        { id: 7, tags: ['x"y'] },
      ],
      [
        { id: 7, title: 'Hello', score: null },
        { id: 7, title: 'Hello,score0' },
      ],
      [['x', true], ['xt']],
      [['x', null], ['x0']],
      [['a', []], ['a[]']],
      [{ 'a"': 'b' }, { a: '"b' }],
      [
        { a: 'b', c: 1 },
        { a: 'b,c', '': 1 },
      ],
    ];
    for (const [one, other] of pairs)
      expect(valueFingerprint(one), JSON.stringify([one, other])).not.toBe(valueFingerprint(other));
  });

  it('takes -0 as 0, as JSON writes both', () => {
    expect(valueFingerprint({ share: JSON.parse('-0.0') as number })).toBe(valueFingerprint({ share: 0 }));
  });

  it('leaves out a field that is undefined, as JSON does', () => {
    expect(valueFingerprint({ ...conversation, extra: undefined })).toBe(valueFingerprint(conversation));
  });

  it('takes dates and big integers by their value', () => {
    expect(valueFingerprint({ at: new Date('2026-11-19T00:00:00Z') })).not.toBe(
      valueFingerprint({ at: new Date('2026-11-20T00:00:00Z') }),
    );
    expect(valueFingerprint({ id: 1n })).not.toBe(valueFingerprint({ id: 2n }));
  });
});
