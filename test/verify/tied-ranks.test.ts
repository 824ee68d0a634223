import { describe, expect, it } from 'vitest';
import { tiedRanks } from '../../src/verify/product-ranking-family.js';

describe("product ranks compared with the API's", () => {
  // The warehouse: product 1 leads alone; 2 and 3 share places 2-3; 4 is fourth.
  const warehouse = new Map([
    ['product 1: rank', 1],
    ['product 1: last place shared', 1],
    ['product 2: rank', 2],
    ['product 2: last place shared', 3],
    ['product 3: rank', 2],
    ['product 3: last place shared', 3],
    ['product 4: rank', 4],
    ['product 4: last place shared', 4],
    ['product 2: shopping answers listing it', 7],
  ]);

  it('agree at any of the places tied products share, whichever order the API gave them', () => {
    for (const [second, third] of [
      [2, 3],
      [3, 2],
    ]) {
      const api = new Map([
        ['product 1: rank', 1],
        ['product 2: rank', second!],
        ['product 3: rank', third!],
        ['product 4: rank', 4],
      ]);
      const compared = tiedRanks(api, warehouse);
      expect([...compared].filter(([key]) => key.endsWith(': rank'))).toEqual([...api]);
      expect(compared.get('product 2: shopping answers listing it')).toBe(7);
      expect([...compared.keys()].some((key) => key.includes('last place'))).toBe(false);
    }
  });

  it('differ where the API puts a product outside its places, showing the nearest of them', () => {
    const api = new Map([
      ['product 1: rank', 2],
      ['product 2: rank', 1],
      ['product 3: rank', 4],
      ['product 4: rank', 3],
    ]);
    const compared = tiedRanks(api, warehouse);
    expect(compared.get('product 1: rank')).toBe(1);
    expect(compared.get('product 2: rank')).toBe(2);
    expect(compared.get('product 3: rank')).toBe(3);
    expect(compared.get('product 4: rank')).toBe(4);
  });
});
