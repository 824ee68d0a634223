/**
 * How bvsync names a brand's stream and a slice in one string. Fetch jobs and a run's record in Redis store these ids,
 * and the warehouse's answers are keyed by them, so both sides must spell them alike (test/slice-ids.test.ts).
 */

/** `brand|stream`: a brand's stream. */
export function brandStreamId(brandId: number, stream: string): string {
  return `${brandId}|${stream}`;
}

/** The brand and stream a `brand|stream` id names; both empty where the id lacks them. */
export function splitBrandStreamId(id: string): { brand: string; stream: string } {
  const [brand = '', stream = ''] = id.split('|');
  return { brand, stream };
}

/** `brand|stream|key`: one slice of a brand's stream. */
export function sliceId(brandId: number, stream: string, key: string): string {
  return `${brandStreamId(brandId, stream)}|${key}`;
}
