import type { ApiClient } from '../../src/api/client.js';
import { endpointReads, type EndpointReads } from '../../src/cli/endpoint-reads.js';

/** The client with a method per endpoint (src/cli/endpoint-reads.ts), as the API tests call them, and its `close`. */
export type NamedClient = EndpointReads & Pick<ApiClient, 'close'>;

export function named(client: ApiClient): NamedClient {
  return { ...endpointReads(client), close: () => client.close() };
}
