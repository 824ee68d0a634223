import { mentionedConversations } from '../streams/measures.js';
import { visibilityTopicsEndpoint } from '../streams/visibility.js';
import { figure, pairFigures, type FigureFamily } from './figure.js';
import { readWhole } from './read-whole.js';
import { warehouseFigures } from './warehouse-figures.js';

/**
 * Visibility by topic over the window (spec endpoint 16): per topic, answers and those mentioning the brand, against
 * the sums of `visibility_topic_daily`'s numerators. Counts, not ratios, are compared: the ratio follows exactly.
 */
export const visibilityFamily: FigureFamily = {
  name: 'visibility',
  async measure({ client, connection, brandId, signal }, window) {
    const report = await readWhole(client, visibilityTopicsEndpoint, brandId, {
      startDate: window.from,
      endDate: window.to,
      signal,
    });
    const api = new Map<string, number>();
    for (const row of report.records) {
      api.set(answersOf(row.topic_id), row.conversations);
      api.set(mentioningOf(row.topic_id), mentionedConversations(row.visibility, row.conversations));
    }
    const warehouse = await warehouseFigures(
      connection,
      `SELECT 'topic ' || topic_id || $4 AS figure, sum(conversations) AS n
         FROM visibility_topic_daily WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE GROUP BY topic_id
       UNION ALL
       SELECT 'topic ' || topic_id || $5, sum(mentioned_conversations)
         FROM visibility_topic_daily WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE GROUP BY topic_id`,
      [brandId, window.from, window.to, ANSWERS, MENTIONING],
    );
    const sum = (figures: Map<string, number>, suffix: string) =>
      [...figures].reduce((total, [key, n]) => (key.endsWith(suffix) ? total + n : total), 0);
    return [
      figure('visibility', 'answers, every topic', sum(api, ANSWERS), sum(warehouse, ANSWERS)),
      figure(
        'visibility',
        'answers mentioning the brand, every topic',
        sum(api, MENTIONING),
        sum(warehouse, MENTIONING),
      ),
      ...pairFigures('visibility', api, warehouse),
    ];
  },
};

const ANSWERS = ': answers';
const MENTIONING = ': answers mentioning the brand';

function answersOf(topicId: number): string {
  return `topic ${topicId}${ANSWERS}`;
}

function mentioningOf(topicId: number): string {
  return `topic ${topicId}${MENTIONING}`;
}
