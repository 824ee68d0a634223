/**
 * A cheap 32-bit FNV-1a fingerprint of a parsed JSON value, walked rather than stringified: keys, order, types and
 * bounds count, 0 and -0 do not; kind markers above 0xFFFF keep it unambiguous (test/api/value-fingerprint.test.ts).
 */
export function valueFingerprint(value: unknown): number {
  return mixValue(OFFSET_BASIS, value) >>> 0;
}

const OFFSET_BASIS = 0x811c9dc5;
const PRIME = 0x01000193;
const float = new Float64Array(1);
const floatWords = new Uint32Array(float.buffer);

// The kinds of value, each a word above every UTF-16 code unit, so that no text can spell one.
const STRING = 0x10001;
const TEXT_END = 0x10002;
const NUMBER = 0x10003;
const TRUE = 0x10004;
const FALSE = 0x10005;
const BIGINT = 0x10006;
const NULL = 0x10007;
const DATE = 0x10008;
const ARRAY_START = 0x10009;
const ARRAY_END = 0x1000a;
const OBJECT_START = 0x1000b;
const KEY = 0x1000c;
const OBJECT_END = 0x1000d;

function mix(hash: number, word: number): number {
  return Math.imul(hash ^ word, PRIME);
}

function mixText(hash: number, text: string): number {
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), PRIME);
  return mix(hash, TEXT_END);
}

function mixValue(hash: number, value: unknown): number {
  switch (typeof value) {
    case 'string':
      return mixText(mix(hash, STRING), value);
    case 'number':
      // A number's two words follow its marker, always two: they may equal a marker without being read as one.
      float[0] = value === 0 ? 0 : value;
      return mix(mix(mix(hash, NUMBER), floatWords[0]!), floatWords[1]!);
    case 'boolean':
      return mix(hash, value ? TRUE : FALSE);
    case 'bigint':
      return mixText(mix(hash, BIGINT), value.toString());
    case 'object': {
      if (value === null) return mix(hash, NULL);
      if (value instanceof Date) return mixText(mix(hash, DATE), value.toISOString());
      if (Array.isArray(value)) {
        hash = mix(hash, ARRAY_START);
        for (let index = 0; index < value.length; index++) hash = mixValue(hash, value[index]);
        return mix(hash, ARRAY_END);
      }
      hash = mix(hash, OBJECT_START);
      const fields = value as Record<string, unknown>;
      for (const key in fields) {
        const field = fields[key];
        // As in JSON: a field that is undefined is not there.
        if (field === undefined) continue;
        hash = mixValue(mixText(mix(hash, KEY), key), field);
      }
      return mix(hash, OBJECT_END);
    }
    default:
      return hash;
  }
}
