import { ENDPOINTS } from '../endpoints.js';
import { OVERLONG_SHOWN, OVERLONG_TEXT, type ProbeContext } from '../probe-context.js';
import { firstPage } from './first-page.js';
import { probePaging } from './paging.js';

/**
 * Endpoint 7: `confirmed` true and false (two requests). True must leave out the platform's suggestions; false
 * must bring them. Both answers without a suggestion cannot show the name works, so the tiebreak decides.
 */
export async function probeCompetitors(ctx: ProbeContext): Promise<void> {
  const endpoint = ENDPOINTS.competitors;
  const { client, brand, book, facts } = ctx;
  const confirmed = await ctx.ask(endpoint, ['confirmed'], () => client.competitors(brand, { confirmed: true }));
  const all = await ctx.ask(endpoint, ['confirmed'], () => client.competitors(brand, { confirmed: false }));
  if (!confirmed.ok) return ctx.failed(endpoint, ['confirmed'], confirmed.why);
  if (!all.ok) return ctx.failed(endpoint, ['confirmed'], all.why);
  const everyone = all.value.records;
  facts.competitorIds = everyone.map((c) => c.id);
  ctx.rememberDomains([...everyone.map((c) => c.website), ...ctx.config.sync.domains]);
  const suggestedInConfirmed = confirmed.value.records.filter((c) => !c.is_actual);
  const suggested = everyone.filter((c) => !c.is_actual);
  if (suggestedInConfirmed.length) {
    return book.wrong(
      endpoint,
      'confirmed',
      `confirmed=true still lists ${suggestedInConfirmed.length} suggested competitor(s), e.g. ${suggestedInConfirmed[0]!.name}`,
    );
  }
  if (suggested.length) {
    return book.verified(
      endpoint,
      'confirmed',
      `false adds ${suggested.length} suggested competitor(s) to the ${confirmed.value.records.length} confirmed`,
    );
  }
  const same = JSON.stringify(everyone.map((c) => c.id)) === JSON.stringify(confirmed.value.records.map((c) => c.id));
  if (!same) return book.verified(endpoint, 'confirmed', 'true and false give different competitors');
  await ctx.tiebreak(
    endpoint,
    'confirmed',
    'maybe',
    () => client.competitors(brand, { confirmed: 'maybe' as never }),
    `true and false give the same ${everyone.length} competitor(s), none suggested (a suggestion of the platform would show it)`,
  );
}

/** Endpoint 10: type and title (three requests), then paging (two). */
export async function probeTemplates(ctx: ProbeContext): Promise<void> {
  const endpoint = ENDPOINTS.templates;
  const { client, brand, book } = ctx;
  const read = (options: object, pageSize = 100) => firstPage(client.templates(brand, { ...options, pageSize }));
  const base = await ctx.askOrFail(endpoint, [], () => read({}), ['type', 'title']);
  if (base?.records.length === 0)
    ctx.failed(endpoint, ['type', 'title'], 'the brand has no template; checkable once it has one');
  else if (base) {
    const templates = base.records;
    const briefs = templates.filter((t) => t.type === 'brief').length;
    const type = briefs * 2 < templates.length ? 'brief' : 'article';
    const typed = await ctx.askOrFail(endpoint, ['type'], () => read({ type }));
    if (typed) {
      const others = typed.records.filter((t) => t.type !== type);
      if (others.length)
        book.wrong(
          endpoint,
          'type',
          `asked for type ${type}, the API sent ${others.length} template(s) of type ${others[0]!.type}`,
        );
      else
        book.verified(
          endpoint,
          'type',
          `type=${type} left out the ${type === 'brief' ? templates.length - briefs : briefs} template(s) of the other type`,
        );
      ctx.offerControl(endpoint, 'type', () => read({ type: 'not-a-type' }, 1));
    }
    // A title that only some templates hold; none such means every title is alike and the filter cannot show.
    const needle = templates
      .map((t) => t.title.slice(0, 200))
      .find((title) => templates.some((t) => !t.title.toLowerCase().includes(title.toLowerCase())));
    if (needle === undefined) {
      await ctx.tiebreak(
        endpoint,
        'title',
        OVERLONG_SHOWN,
        () => read({ title: OVERLONG_TEXT }, 1),
        'every template holds the same title',
      );
    } else {
      const titled = await ctx.askOrFail(endpoint, ['title'], () => read({ title: needle }));
      if (titled) {
        const others = titled.records.filter((t) => !t.title.toLowerCase().includes(needle.toLowerCase()));
        if (others.length)
          book.wrong(endpoint, 'title', `searched "${needle}", the API sent "${others[0]!.title}" too`);
        else book.verified(endpoint, 'title', `searching "${needle}" left out the templates without it`);
      }
    }
  }
  await probePaging(ctx, endpoint, [], (size) => client.templates(brand, { pageSize: size }));
}

/** Endpoints 11 and 12 take only paging from bvsync (two requests each). */
export async function probeArticlesAndAnalyses(ctx: ProbeContext): Promise<void> {
  const { client, brand } = ctx;
  await probePaging(ctx, ENDPOINTS.articles, [], (size) => client.articles(brand, { pageSize: size }));
  await probePaging(ctx, ENDPOINTS.contentAnalyses, [], (size) => client.contentAnalyses(brand, { pageSize: size }));
}
