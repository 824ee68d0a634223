import { describe, expect, it } from 'vitest';
import { endpointTemplate } from '../../src/ops/prometheus-metrics.js';

describe('endpointTemplate', () => {
  it('replaces the values in a path by the names of the spec', () => {
    expect(endpointTemplate('GET /customer/v1/brands/7/conversations')).toBe(
      'GET /customer/v1/brands/{brand_id}/conversations',
    );
    expect(endpointTemplate('GET /customer/v1/brands/12/citations/domains/example.com')).toBe(
      'GET /customer/v1/brands/{brand_id}/citations/domains/{domain}',
    );
    expect(endpointTemplate('GET /customer/v1/brands/3/swot/abc-1')).toBe(
      'GET /customer/v1/brands/{brand_id}/swot/{statement_id}',
    );
  });

  it('leaves fixed segments and a path without a method as they are, and drops a query', () => {
    expect(endpointTemplate('/customer/v1/brands/3/reports/citations?period=day')).toBe(
      '/customer/v1/brands/{brand_id}/reports/citations',
    );
    expect(endpointTemplate('GET /customer/v1/brands/3/fanouts/by-phrase')).toBe(
      'GET /customer/v1/brands/{brand_id}/fanouts/by-phrase',
    );
  });
});
