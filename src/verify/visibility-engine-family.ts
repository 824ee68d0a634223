import { visibilityTopicsEndpoint } from '../streams/visibility.js';
import { readRows } from '../warehouse/read-rows.js';
import { pairFigures, rangeOf, type FigureFamily } from './figure.js';
import { readWhole } from './read-whole.js';
import { ANSWERS, MENTIONING, addTopicFigures, everyTopic, topicFiguresSql } from './visibility-family.js';
import { warehouseFigures } from './warehouse-figures.js';

/** The per-engine visibility table of the `visibility_by_engine` stream (migration 009), where the file has it. */
const ENGINE_TABLE = 'visibility_topic_engine_daily';

/**
 * Visibility by topic per engine over the window (endpoint 16, `engines=[engine]`) against the per-engine daily rows,
 * for `sync.engineBreakdown` or every engine the brand has rows of, so a missing day is named; none without such rows.
 */
export const visibilityEngineFamily: FigureFamily = {
  name: 'visibility_by_engine',
  async measure({ client, connection, brandId, engineBreakdown, signal }, window) {
    const exists = await readRows(connection, 'SELECT 1 FROM duckdb_tables() WHERE table_name = $1', [ENGINE_TABLE]);
    if (exists.length === 0) return [];
    const seen = await readRows(
      connection,
      `SELECT DISTINCT engine FROM ${ENGINE_TABLE} WHERE brand_id = $1 ORDER BY engine`,
      [brandId],
    );
    if (seen.length === 0) return [];
    const engines = engineBreakdown ? [...new Set(engineBreakdown)].sort() : seen.map((row) => String(row.engine));
    const api = new Map<string, number>();
    for (const engine of engines) {
      const report = await readWhole(client, visibilityTopicsEndpoint, brandId, {
        ...rangeOf(window),
        engines: [engine],
        signal,
      });
      addTopicFigures(api, report.records, `engine ${engine} topic `);
    }
    const all = await warehouseFigures(
      connection,
      topicFiguresSql(ENGINE_TABLE, "'engine ' || engine || ' topic ' || topic_id", 'engine, topic_id'),
      [brandId, window.from, window.to, ANSWERS, MENTIONING],
    );
    // Rows of an engine the sync no longer asks stay as loaded; they are not compared with an answer never asked for.
    const asked = engines.map((engine) => `engine ${engine} topic `);
    const warehouse = new Map([...all].filter(([key]) => asked.some((prefix) => key.startsWith(prefix))));
    const totals = engines.flatMap((engine) =>
      everyTopic('visibility_by_engine', `engine ${engine}: `, api, warehouse, `engine ${engine} topic `),
    );
    return [...totals, ...pairFigures('visibility_by_engine', api, warehouse)];
  },
};
