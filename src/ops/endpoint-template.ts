/**
 * `GET /customer/v1/brands/7/citations/domains/example.com` -> `GET /customer/v1/brands/{brand_id}/citations/domains/{domain}`.
 * Metric labels name the endpoint of the spec, not the values in its path: a label per brand, domain or statement id
 * would grow the series without bound.
 */
export function endpointTemplate(endpoint: string): string {
  const [method, path = ''] = endpoint.includes(' ') ? (endpoint.split(' ', 2) as [string, string]) : ['', endpoint];
  const segments = path.split('?')[0]!.split('/');
  for (let i = 1; i < segments.length; i += 1) {
    const previous = segments[i - 1];
    if (previous === 'brands') segments[i] = '{brand_id}';
    else if (previous === 'domains' && segments[i - 2] === 'citations') segments[i] = '{domain}';
    else if (previous === 'swot') segments[i] = '{statement_id}';
  }
  const template = segments.join('/');
  return method ? `${method} ${template}` : template;
}
