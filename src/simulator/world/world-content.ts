import { DAY_MS, isoTime } from '../sim-days.js';
import { ARTICLE_STATUSES, SWOT_TYPE_VALUES } from '../spec-enums.js';
import type { Article, CitedPage, ContentAnalysis, SwotStatement, Template, Topic, WorldDraft } from './world-types.js';
import { SWOT_TEXTS } from './word-lists.js';

/** Templates of the platform, shown to a brand that has none (endpoint 10). */
export function platformTemplates(firstDay: number): Template[] {
  const base = firstDay * DAY_MS - 400 * DAY_MS;
  const titles: Array<[string, 'brief' | 'article', string]> = [
    ['Product comparison brief', 'brief', 'comparison'],
    ['How-to guide', 'article', 'guide'],
    ['Best-of listicle', 'article', 'listicle'],
    ['FAQ page brief', 'brief', 'faq'],
  ];
  return titles.map(([title, type, articleType], index) => ({
    id: index + 1,
    title,
    type,
    article_type: articleType,
    content: `# ${title}\n\nOutline, audience and key points.`,
    created_at: isoTime(base + index * 7 * DAY_MS),
    updated_at: isoTime(base + index * 7 * DAY_MS + DAY_MS),
  }));
}

/** The brand's content: its templates (when it has its own), articles, content analyses and SWOT statements. */
export function drawContent(draft: WorldDraft, hasTemplates: boolean, topics: Topic[], ownPages: CitedPage[]) {
  const { rng, nextId, industry, brand, beforeStart } = draft;
  const templates = Array.from({ length: hasTemplates ? 6 : 0 }, (_, i): Template => {
    const created = beforeStart(365);
    const type = i % 3 === 0 ? 'brief' : 'article';
    return {
      id: nextId(),
      title: `${brand.name} ${rng.pick(industry.productNouns)} ${type === 'brief' ? 'brief' : rng.pick(['guide', 'review', 'comparison'])} ${i + 1}`,
      type,
      ...(type === 'article' ? { article_type: rng.pick(['guide', 'listicle', 'comparison', 'review']) } : {}),
      ...(rng.chance(0.7) ? { content: `Key points for ${rng.pick(industry.qualifiers)} buyers.` } : {}),
      created_at: isoTime(created),
      updated_at: isoTime(created + rng.int(20) * DAY_MS),
    };
  });

  const articles = Array.from({ length: 24 }, (): Article => {
    const created = beforeStart(200);
    const topic = rng.pick(topics);
    const title = `${rng.pick(['The best', 'How to choose', 'Why we love', 'A guide to'])} ${rng.pick(industry.productNouns)} ${rng.pick(industry.qualifiers)}`;
    const status = rng.weighted(ARTICLE_STATUSES, [4, 3, 6, 1]);
    return {
      id: nextId(),
      title,
      slug: title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      language: topic.language,
      type: rng.pick(['guide', 'listicle', 'comparison', 'review']),
      version: rng.between(1, 4),
      status,
      generation_status:
        status === 'in_progress' ? rng.pick(['queued', 'generating']) : rng.weighted(['completed', 'failed'], [9, 1]),
      topic_ids: [topic.id],
      scenario_ids: rng.sample(topic.scenarios, 2).map((s) => s.id),
      created_at: isoTime(created),
      updated_at: isoTime(created + rng.int(30) * DAY_MS),
    };
  });

  const contentAnalyses = Array.from({ length: 18 }, (): ContentAnalysis => {
    const created = beforeStart(120);
    const kind = rng.weighted(['url', 'article'], [2, 1]);
    const status = rng.weighted(['pending', 'running', 'completed', 'failed'], [2, 1, 6, 1]);
    const topic = rng.pick(topics);
    const article = rng.pick(articles);
    return {
      id: nextId(),
      kind,
      status,
      step:
        status === 'completed'
          ? 'done'
          : status === 'pending'
            ? 'queued'
            : rng.pick(['fetching', 'analysing', 'scoring']),
      created_at: isoTime(created),
      updated_at: isoTime(created + rng.int(3) * DAY_MS),
      ...(kind === 'article' ? { article_id: article.id, title: article.title } : { url: rng.pick(ownPages).url }),
      ...(rng.chance(0.6) ? { topic_id: topic.id, topic_name: topic.name } : {}),
    };
  });

  const statements = SWOT_TYPE_VALUES.flatMap((type) =>
    rng.sample(SWOT_TEXTS[type]!, 2).map((text): SwotStatement => ({ id: nextId(), type, text })),
  );
  return { templates, articles, contentAnalyses, statements };
}
