import { mentionedConversations } from '../streams/measures.js';
import { visibilityTopicsEndpoint, type VisibilityRow } from '../streams/visibility.js';
import { figure, pairFigures, rangeOf, type Figure, type FigureFamily } from './figure.js';
import { readWhole } from './read-whole.js';
import { warehouseFigures } from './warehouse-figures.js';

export const ANSWERS = ': answers';
export const MENTIONING = ': answers mentioning the brand';

/**
 * Visibility by topic over the window (spec endpoint 16): per topic, answers and those mentioning the brand, against
 * the sums of `visibility_topic_daily`'s numerators. Counts, not ratios, are compared: the ratio follows exactly.
 */
export const visibilityFamily: FigureFamily = {
  name: 'visibility',
  async measure({ client, connection, brandId, signal }, window) {
    const report = await readWhole(client, visibilityTopicsEndpoint, brandId, { ...rangeOf(window), signal });
    const api = new Map<string, number>();
    addTopicFigures(api, report.records, 'topic ');
    const warehouse = await warehouseFigures(
      connection,
      topicFiguresSql('visibility_topic_daily', "'topic ' || topic_id", 'topic_id'),
      [brandId, window.from, window.to, ANSWERS, MENTIONING],
    );
    return [...everyTopic('visibility', '', api, warehouse, 'topic '), ...pairFigures('visibility', api, warehouse)];
  },
};

/** The warehouse's side of addTopicFigures, per `groupBy` of `table`: `label`, then ANSWERS ($4) or MENTIONING ($5). */
export function topicFiguresSql(table: string, label: string, groupBy: string): string {
  const rows = `FROM ${table} WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE GROUP BY ${groupBy}`;
  return `SELECT ${label} || $4 AS figure, sum(conversations) AS n ${rows}
    UNION ALL SELECT ${label} || $5, sum(mentioned_conversations) ${rows}`;
}

/** Each topic's answers and answers mentioning the brand, as figures named `${prefix}${topic id}: …`. */
export function addTopicFigures(figures: Map<string, number>, rows: readonly VisibilityRow[], prefix: string): void {
  for (const row of rows) {
    figures.set(`${prefix}${row.topic_id}${ANSWERS}`, row.conversations);
    figures.set(`${prefix}${row.topic_id}${MENTIONING}`, mentionedConversations(row.visibility, row.conversations));
  }
}

/** Both counts summed over every topic whose figures start with `prefix`, labelled `${label}answers, every topic`. */
export function everyTopic(
  family: string,
  label: string,
  api: Map<string, number>,
  warehouse: Map<string, number>,
  prefix: string,
): Figure[] {
  const sum = (figures: Map<string, number>, suffix: string) =>
    [...figures].reduce((total, [key, n]) => (key.startsWith(prefix) && key.endsWith(suffix) ? total + n : total), 0);
  return [
    figure(family, `${label}answers, every topic`, sum(api, ANSWERS), sum(warehouse, ANSWERS)),
    figure(
      family,
      `${label}answers mentioning the brand, every topic`,
      sum(api, MENTIONING),
      sum(warehouse, MENTIONING),
    ),
  ];
}
