import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { desiredStateJsonSchema } from '../../src/manage/desired-state-schema.js';
import { checkDesiredState } from '../../src/manage/load-desired-state.js';
import { ManageFileError } from '../../src/manage/manage-file-error.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'brand-1.yaml');

describe('the desired-state file', () => {
  it('the example passes the published JSON Schema and the checks, with the defaults filled in', () => {
    const raw = parse(readFileSync(EXAMPLE, 'utf8')) as unknown;
    const schema = desiredStateJsonSchema();
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(schema);
    expect(validate(raw), JSON.stringify(validate.errors)).toBe(true);
    const desired = checkDesiredState(raw, 'example');
    expect(desired.brand).toBe(1);
    expect(desired.topics[0]).toMatchObject({
      name: 'Quiet appliances',
      type: 'prompter',
      language: 'english',
      status: 'active',
      engines: [],
    });
  });

  it('the schema refuses what the checks refuse: an unknown field, more than 100 scenarios', () => {
    const validate = new Ajv2020({ strict: false }).compile(desiredStateJsonSchema());
    expect(validate({ brand: 1, trackedUrl: [] })).toBe(false);
    expect(
      validate({ brand: 1, topics: [{ name: 't', scenarios: Array.from({ length: 101 }, (_, n) => `s${n}`) }] }),
    ).toBe(false);
  });

  it('lists every problem with its place in the file', () => {
    let error: unknown;
    try {
      checkDesiredState(
        { brand: 0, trackedUrls: [{ url: 'mailto:a@b.c' }], personas: [{ id: 5 }], competitors: [{ name: 'X' }] },
        'brand.yaml',
      );
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ManageFileError);
    const problems = (error as ManageFileError).problems.join('\n');
    expect(problems).toMatch(/^brand: /m);
    expect(problems).toMatch(/^personas\[0\]: names no field to change/m);
    expect(problems).toMatch(/^competitors\[0\]\.website: /m);
  });

  it('an unknown key is named with the key it is a typo of, else with the keys allowed there', () => {
    let error: unknown;
    try {
      checkDesiredState(
        {
          brand: 1,
          trackedUrl: [],
          topics: [{ name: 't', scenarois: [] }],
          personas: [{ id: 5, city: 'x', citty: 'y' }],
          colour: 1,
        },
        'f',
      );
    } catch (thrown) {
      error = thrown;
    }
    expect((error as ManageFileError).problems.sort()).toEqual([
      '(the file): unknown key "colour"; the keys here: brand, trackedUrls, topics, competitors, personas, tags',
      '(the file): unknown key "trackedUrl"; did you mean "trackedUrls"?',
      'personas[0]: unknown key "citty"; did you mean "city"?',
      'topics[0]: unknown key "scenarois"; did you mean "scenarios"?',
    ]);
  });

  it('names a repeated entry beside a typo elsewhere in the file, not only once the typo is fixed', () => {
    let error: unknown;
    try {
      checkDesiredState({ brand: 1, topics: [{ name: 'A' }, { name: 'A' }, { name: 'B', scenarois: [] }] }, 'f');
    } catch (thrown) {
      error = thrown;
    }
    expect((error as ManageFileError).problems).toEqual([
      'topics[2]: unknown key "scenarois"; did you mean "scenarios"?',
      'topics[1]: repeats topics[0] (the same name, type and language); keep one entry',
    ]);
  });

  it('an address that is not http(s) is named with its index', () => {
    expect(() =>
      checkDesiredState({ brand: 1, trackedUrls: [{ url: 'https://a.com' }, { url: 'mailto:a@b.c' }] }, 'f'),
    ).toThrow(/trackedUrls\[1\]\.url: "mailto:a@b\.c" is not an http\(s\) address/);
  });

  it('an entry repeating another by the key the API tells them apart by is refused, every one named', () => {
    const file = {
      brand: 1,
      trackedUrls: [
        { url: 'https://a.com/page-x', group: 7 },
        { url: 'https://b.com' },
        { url: 'https://a.com/page-x/' },
      ],
      topics: [
        { name: 'Dup topic', scenarios: ['a'] },
        { name: 'Dup topic', scenarios: ['b'] },
        { name: 'Dup topic', language: 'german' },
      ],
      competitors: [
        { name: 'Acme', website: 'acme.com' },
        { name: 'ACME', website: 'acme.org' },
      ],
      personas: [
        { id: 3, city: 'Denver' },
        { id: 3, city: 'Boston' },
      ],
      tags: [
        { id: 4, name: 'x' },
        { id: 5, name: 'x' },
      ],
    };
    let message = '';
    try {
      checkDesiredState(file, 'brand.yaml');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n').filter((line) => line.includes('repeats'))).toEqual([
      '  - trackedUrls[2]: repeats trackedUrls[0] (the same address in normal form); keep one entry',
      '  - topics[1]: repeats topics[0] (the same name, type and language); keep one entry',
      '  - competitors[1]: repeats competitors[0] (the same name, case aside); keep one entry',
      '  - personas[1]: repeats personas[0] (the same id); keep one entry',
    ]);
  });
});
