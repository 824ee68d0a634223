import type { ApiClient, ReadOptions } from '../api/client.js';
import type { Endpoint } from '../api/endpoint.js';

/** A read's records over every page, and the `info` of its last page (a report has one page). */
export interface WholeRead<R, I> {
  records: R[];
  info: I | undefined;
}

/** Reads every page of one request of `verify`: a report is one page, a paged list a few. */
export async function readWhole<R, I, O>(
  client: ApiClient,
  endpoint: Endpoint<R, I, O>,
  brandId: number,
  options: O & ReadOptions,
): Promise<WholeRead<R, I>> {
  const whole: WholeRead<R, I> = { records: [], info: undefined };
  for await (const page of client.read(endpoint, brandId, options)) {
    whole.records.push(...page.records);
    whole.info = page.info;
  }
  return whole;
}
