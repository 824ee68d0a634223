import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/warehouse/paths.js';
import { readNumberedSqlFiles } from '../../src/warehouse/sql-files.js';

/**
 * The text of every migration as warehouses applied it. A warehouse refuses to open when an applied migration's text
 * changed (src/warehouse/migrator.ts), so an edit, even of a comment, must fail here before it reaches a user.
 */
const APPLIED_CHECKSUMS: Readonly<Record<string, string>> = {
  '001_sync_bookkeeping.sql': '08288a5e637b6db89c26770b4f011edfb2376cda978ed1dc2a4cb2f971811660',
  '002_conversations_and_tracked_urls.sql': '251d0b3878b776bbf0bf4d1fc889e02f2e6562d247ad8c4f31b16aefbe95a001',
  '003_reports.sql': '15576adae57c95ae36592f6105e7d2d94dc39b263874dd1b2ea2a32f6d69898f',
  '004_catalog_and_content.sql': 'b0e05e4b7fa0030f73b5512c773e2bd7592e48d73ebd2ab51b5e4b28076943b3',
  '005_topics_without_last_seen_day.sql': 'c50f194d9c3974e8ed1fc84b14efbb0b845ffb7a6a3c804f5ae5b7b4628e25e0',
  '006_slice_last_attempt.sql': '326b868d224ca7f432f3e29507227050fd83f1f12902777ae4ab155c68762735',
  '007_run_status_incomplete.sql': '51683029c1f5b1f9a0f07c59036720446e8a5ba824ecd93b3b9f776da83f69ba',
  '008_cited_page_fanouts.sql': '3ad928d6ebdda0a054e25d61ed0ce9971476f86095e5ed8f07093b288bbc6558',
  '009_provenance_and_engines.sql': '2e12dd8e7eb918f396c0095494c13baa226975f8f1162e76d692d5db2088e2e9',
  '010_visibility_days.sql': '528dcb955ceee5fce8c1108f01a19d1918927e2346cf8fb1e80a77502a2e6b65',
  '011_article_id_lists.sql': '86161e24c62f92be15fb7e1d1c161fdfd47021e79a825824e12183e4cc68170e',
  '012_swot_mentions_window.sql': '78d12c6b46ae4ec540b5cddabce4fc2890aa25857b9853e1f0bb4336be40c518',
  '013_citation_window_totals.sql': 'af3cfc708def4b2240d1caad9daa40beb6e2a2cfda29dcbd3cd1bdf35881eb3e',
  '014_slice_sent_engines.sql': 'fc466bacb9b3924d5631b855ec7c377cdc0e6d1a9c7b01fa2d74d471f394e4ba',
  '015_slice_read_with.sql': '819fb285455dc0eae14f3ae5478902ca18fb28df89e5eb251b72d2430092caa9',
  '016_warehouse_id.sql': 'e09347f95f253fc53c6dd8e9311116fe0ddf6bda78b936181c103a6a80a81fdb',
  '017_heal_runs.sql': '776d85ab7e8a194cc19f8416b7c04b120430fdb17c2b0e6f3e0e25a7e66a53c6',
  '018_schema_drift.sql': '98fbf70b9d2c2c0e2b5932b73b6c5615a933e88cf3006a347487a0210574b224',
};

describe('the migration files', () => {
  it('keep the text warehouses applied: a change goes in a new numbered file', () => {
    const changed = readNumberedSqlFiles(MIGRATIONS_DIR)
      .filter((file) => createHash('sha256').update(file.text).digest('hex') !== APPLIED_CHECKSUMS[file.name])
      .map((file) =>
        APPLIED_CHECKSUMS[file.name] === undefined
          ? `${file.name} is new: add its sha256 to APPLIED_CHECKSUMS once it lands`
          : `${file.name} was edited: warehouses that applied it would refuse to open; restore it and add a new file`,
      );
    expect(changed).toEqual([]);
  });
});
