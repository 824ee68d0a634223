import { describe, expect, it } from 'vitest';
import type { EndpointReads } from '../../src/cli/endpoint-reads.js';
import { ValidationError } from '../../src/api/errors.js';
import { DECLARED, ENDPOINTS } from '../../src/cli/doctor/endpoints.js';
import { STREAMS } from '../../src/streams/registry.js';
import type { AnyEndpoint } from '../../src/api/endpoint.js';
import { ProbeContext, probeWindows } from '../../src/cli/doctor/probe-context.js';
import { RefusedNames } from '../../src/cli/doctor/refused-names.js';
import { VerdictBook } from '../../src/cli/doctor/verdicts.js';
import { probeFanoutsByPhrase } from '../../src/cli/doctor/probes/fanouts.js';
import { probeVisibilityReport } from '../../src/cli/doctor/probes/echo.js';
import { parseConfig } from '../../src/configuration.js';

const refused = (...details: Array<[string, string]>) =>
  new ValidationError('GET /x: 400', {
    status: 400,
    endpoint: 'GET /x',
    details: details.map(([field, message]) => ({ field, message })),
  });

function context(params: Record<string, string> = {}, refused?: RefusedNames) {
  const config = parseConfig({ api: { params } });
  const book = new VerdictBook(config.api.params);
  const ctx = new ProbeContext({} as EndpointReads, 1, book, probeWindows('2026-11-20'), config, refused);
  return { ctx, book };
}

describe('doctor verdicts', () => {
  it('a later, stronger verdict wins; a weaker one never undoes it', () => {
    const { book } = context();
    book.declare(ENDPOINTS.conversations, ['topic_id']);
    expect(book.list()[0]).toMatchObject({
      verdict: 'cannot be checked',
      why: expect.stringContaining('no probe reached it'),
    });
    book.unchecked(ENDPOINTS.conversations, 'topic_id', 'no topic');
    book.verified(ENDPOINTS.conversations, 'topic_id', 'fewer answers');
    book.wrong(ENDPOINTS.conversations, 'topic_id', 'ignored');
    book.verified(ENDPOINTS.conversations, 'topic_id', 'later');
    expect(book.list()).toEqual([
      { endpoint: ENDPOINTS.conversations, param: 'topic_id', wire: 'topic_id', verdict: 'wrong', why: 'ignored' },
    ]);
  });

  it('reads a 400: an unknown name is wrong, a judged value shows the name is read, a missing field asked under another name is wrong', async () => {
    const { ctx, book } = context({ page_size: 'limit' });
    const answer = await ctx.ask(ENDPOINTS.conversations, ['start_date', 'mentioned'], async () => {
      throw refused(
        ['start_date', 'unknown query parameter for this endpoint'],
        ['mentioned', 'must be true or false'],
        ['limit', 'must be at most 100'],
      );
    });
    expect(answer).toEqual({
      ok: false,
      why: expect.stringMatching(/^the API refused the request over "start_date", "mentioned", "limit"/),
    });
    expect(book.verdictOf(ENDPOINTS.conversations, 'start_date')).toBe('wrong');
    expect(book.verdictOf(ENDPOINTS.conversations, 'mentioned')).toBe('verified');
    // page_size was not in the probe's list, but every paged request sends it: the detail is read against the endpoint's parameters.
    expect(book.verdictOf(ENDPOINTS.conversations, 'page_size')).toBe('verified');

    await ctx.ask(ENDPOINTS.fanoutsByPhrase, ['phrase'], async () => {
      throw refused(['text', 'is required']);
    });
    expect(book.list().find((r) => r.param === 'phrase')).toMatchObject({
      verdict: 'wrong',
      why: 'sent "phrase", yet the API asks for "text" (is required)',
    });
    await ctx.ask(ENDPOINTS.fanoutsCited, ['domain'], async () => {
      throw refused(['page_url', 'send one of url and domain'], ['cited_domain', 'send one of url and domain']);
    });
    expect(book.list().find((r) => r.param === 'domain')?.why).toContain('perhaps api.params.domain = "cited_domain"');
  });

  it('tells a message about a name from one about a value', async () => {
    const { ctx, book } = context();
    for (const [param, message] of [
      ['engines', 'unknown value "x"'],
      ['sentiment', 'unknown values "a", "b"'],
      ['ownership', 'is not a valid value'],
    ] as const) {
      await ctx.ask(ENDPOINTS.citations, [param], async () => {
        throw refused([param, message]);
      });
      expect(book.verdictOf(ENDPOINTS.citations, param), message).toBe('verified');
    }
    for (const [param, message] of [
      ['period', 'Unexpected parameter'],
      ['domains', 'is not a known query parameter'],
      ['first_party', 'unrecognized key'],
    ] as const) {
      await ctx.ask(ENDPOINTS.citations, [param], async () => {
        throw refused([param, message]);
      });
      expect(book.verdictOf(ENDPOINTS.citations, param), message).toBe('wrong');
    }
  });

  it('calls an ignored invalid value wrong only when a verified control shows the API refuses bad values', async () => {
    const accepting = context();
    accepting.book.verified(ENDPOINTS.visibility, 'include_scenarios', 'echoed');
    accepting.ctx.offerControl(ENDPOINTS.visibility, 'include_scenarios', async () => ({}));
    await accepting.ctx.tiebreak(ENDPOINTS.competitors, 'confirmed', 'maybe', async () => ({}), 'both answers alike');
    expect(accepting.book.list().find((r) => r.param === 'confirmed')).toMatchObject({
      verdict: 'cannot be checked',
      why: expect.stringContaining('accepts even confirmed=maybe'),
    });

    const validating = context();
    validating.ctx.offerControl(ENDPOINTS.visibility, 'include_scenarios', async () => {
      throw refused(['include_scenarios', 'must be true or false']);
    });
    // A control whose parameter nothing verified is no control.
    await validating.ctx.tiebreak(ENDPOINTS.competitors, 'confirmed', 'maybe', async () => ({}), 'both answers alike');
    expect(validating.book.verdictOf(ENDPOINTS.competitors, 'confirmed')).toBe('cannot be checked');
    validating.book.verified(ENDPOINTS.visibility, 'include_scenarios', 'echoed');
    await validating.ctx.tiebreak(ENDPOINTS.competitors, 'confirmed', 'maybe', async () => ({}), 'both answers alike');
    expect(validating.book.verdictOf(ENDPOINTS.competitors, 'confirmed')).toBe('wrong');
    await validating.ctx.tiebreak(
      ENDPOINTS.conversations,
      'mentioned',
      'maybe',
      async () => {
        throw refused(['mentioned', 'must be true or false']);
      },
      'every answer mentions the brand',
    );
    expect(validating.book.verdictOf(ENDPOINTS.conversations, 'mentioned')).toBe('verified');
    expect(validating.ctx.requests).toBe(4);
  });

  it('learns whether the API refuses bad values by kind: a day refused says nothing of a flag', async () => {
    const { ctx, book } = context();
    book.verified(ENDPOINTS.conversations, 'start_date', 'the answers are of the days asked');
    ctx.offerControl(ENDPOINTS.conversations, 'start_date', async () => {
      throw refused(['start_date', 'must be a day']);
    });
    await ctx.tiebreak(
      ENDPOINTS.conversations,
      'end_date',
      'not-a-day',
      async () => ({}),
      'every answer is of the window',
    );
    expect(book.verdictOf(ENDPOINTS.conversations, 'end_date')).toBe('wrong');
    // Lenient about flags: no flag control ran, so a flag's name taking "maybe" is not shown wrong.
    await ctx.tiebreak(ENDPOINTS.competitors, 'confirmed', 'maybe', async () => ({}), 'both answers alike');
    expect(book.list().find((r) => r.param === 'confirmed')).toMatchObject({
      verdict: 'cannot be checked',
      why: expect.stringContaining('accepts even confirmed=maybe'),
    });
    book.verified(ENDPOINTS.visibility, 'include_scenarios', 'echoed');
    ctx.offerControl(ENDPOINTS.visibility, 'include_scenarios', async () => ({}));
    await ctx.tiebreak(
      ENDPOINTS.conversations,
      'mentioned',
      'maybe',
      async () => ({}),
      'every answer mentions the brand',
    );
    expect(book.verdictOf(ENDPOINTS.conversations, 'mentioned')).toBe('cannot be checked');
  });

  it('sends a refused request again without the names refused as unknown, and leaves them out of later requests', async () => {
    const refused = new RefusedNames();
    const { ctx, book } = context({}, refused);
    let calls = 0;
    const answer = await ctx.ask(ENDPOINTS.templates, ['type'], async () => {
      calls++;
      if (calls === 1) {
        throw new ValidationError('400', {
          status: 400,
          endpoint: 'GET /customer/v1/brands/1/templates',
          details: [{ field: 'page_size', message: 'unknown query parameter for this endpoint' }],
        });
      }
      return 'second answer';
    });
    expect(answer).toEqual({ ok: true, value: 'second answer' });
    expect(book.verdictOf(ENDPOINTS.templates, 'page_size')).toBe('wrong');
    expect(ctx.requests).toBe(2);
    expect(refused.strip('/base/customer/v1/brands/1/templates?type=brief&page=1&page_size=1')).toBe(
      '/base/customer/v1/brands/1/templates?type=brief&page=1',
    );
    expect(refused.strip('/customer/v1/brands/1/templates?page_size=1')).toBe('/customer/v1/brands/1/templates');
    expect(refused.strip('/customer/v1/brands/1/articles?page_size=1')).toBe(
      '/customer/v1/brands/1/articles?page_size=1',
    );
  });
});

describe("doctor's phrase probe", () => {
  /** An API whose phrase search answers `queries` on any page of any size. */
  function answering(queries: string[]) {
    const config = parseConfig({ sync: { phrases: ['machine'] } });
    const book = new VerdictBook(config.api.params);
    const reads = {
      async *fanoutsByPhrase() {
        yield {
          records: queries.map((query, index) => ({ id: index + 1, query })),
          rejects: [],
          info: { page: 1, page_size: 100, total_rows: queries.length },
          totalRows: queries.length,
        };
        return { pages: 1, records: queries.length };
      },
    } as unknown as EndpointReads;
    return { ctx: new ProbeContext(reads, 1, book, probeWindows('2026-11-20'), config), book };
  }

  it('calls the phrase wrong when some searches returned do not hold it, as the spec answers only those that do', async () => {
    const { ctx, book } = answering(['best machine for espresso', 'cheap grinder', 'machine descaling']);
    await probeFanoutsByPhrase(ctx, []);
    const row = book.list().find((r) => r.param === 'phrase')!;
    expect(row.verdict).toBe('wrong');
    expect(row.why).toContain('1 of the 3 searches returned do not hold "machine" (one: "cheap grinder")');
  });

  it('verifies it when every search returned holds it', async () => {
    const { ctx, book } = answering(['best Machine for espresso', 'machine descaling']);
    await probeFanoutsByPhrase(ctx, []);
    expect(book.list().find((r) => r.param === 'phrase')).toMatchObject({
      verdict: 'verified',
      why: 'the 2 searches returned hold "machine"',
    });
  });
});

describe("doctor's check of the engines bvsync learns from the visibility report", () => {
  function echoing(query: Record<string, unknown> | undefined, sync: Record<string, unknown> = {}) {
    const config = parseConfig({ sync });
    const reads = {
      visibilityTopics: async () => ({ records: [], info: query ? { query } : {} }),
    } as unknown as EndpointReads;
    return new ProbeContext(reads, 1, new VerdictBook(config.api.params), probeWindows('2026-11-20'), config);
  }
  const asked = { start_date: '2026-10-22', end_date: '2026-11-20', include_scenarios: true };

  it('fails when the echo of a request sent without engines names none, unless sync.engineBreakdown names them', async () => {
    const silent = echoing(asked);
    await probeVisibilityReport(silent);
    expect(silent.assumptions).toEqual([
      {
        ok: false,
        line: expect.stringMatching(
          /^engines: the visibility report's info\.query names no engines .*set sync\.engineBreakdown/,
        ),
      },
    ]);
    const absent = echoing(undefined);
    await probeVisibilityReport(absent);
    expect(absent.assumptions[0]!.line).toContain('(it is absent)');
    const configured = echoing(asked, { engineBreakdown: ['chatgpt'] });
    await probeVisibilityReport(configured);
    expect(configured.assumptions).toEqual([
      { ok: true, line: expect.stringContaining('sync.engineBreakdown (chatgpt)') },
    ]);
    const naming = echoing({ ...asked, engines: ['chatgpt', 'gemini'] });
    await probeVisibilityReport(naming);
    expect(naming.assumptions).toEqual([{ ok: true, line: expect.stringContaining('(chatgpt, gemini)') }]);
  });
});

describe("doctor's table of endpoints", () => {
  it('lists the endpoint of every stream, so doctor checks every parameter a run sends', () => {
    const listed = new Set(Object.values(DECLARED));
    // Streams that read a listed endpoint through a declaration of their own, sending some of its parameters.
    const readsListed: Record<string, AnyEndpoint> = { cited_page_fanouts: DECLARED[ENDPOINTS.fanoutsCited]! };
    const missing = [...STREAMS.values()]
      .filter((stream) => !listed.has(stream.endpoint) && !readsListed[stream.name])
      .map((stream) => stream.name);
    expect(missing).toEqual([]);
    for (const [name, endpoint] of Object.entries(readsListed)) {
      const own = STREAMS.get(name as never)!.endpoint;
      expect(own.path({} as never)).toEqual(endpoint.path({} as never));
      expect(endpoint.params).toEqual(expect.arrayContaining([...own.params]));
    }
  });

  it("labels each endpoint by its path and spec number, as doctor's table prints them", () => {
    expect(Object.keys(DECLARED)).toEqual([
      'tracked-urls (3)',
      'competitors (7)',
      'templates (10)',
      'articles (11)',
      'content-analyses (12)',
      'conversations (13)',
      'fanouts/by-phrase (14)',
      'fanouts/cited (15)',
      'reports/visibility/topics (16)',
      'reports/citations (17)',
      'citations/domains/{domain} (18)',
      'products/ranking (19)',
      'swot/{statement_id} (20)',
    ]);
    expect(Object.values(ENDPOINTS)).toEqual(Object.keys(DECLARED));
  });

  it("names each endpoint by its path, as api.endpointParams and the table's labels do", () => {
    // Each placeholder of a path option reads as its name in braces (`statementId` -> `{statement_id}`).
    const placeholders = new Proxy(
      {},
      { get: (_target, key) => `{${String(key).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}}` },
    );
    for (const stream of STREAMS.values()) {
      expect(stream.endpoint.path(placeholders as never).join('/'), stream.name).toBe(stream.endpoint.name);
    }
  });
});
