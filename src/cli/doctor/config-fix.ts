import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ApiConfig } from '../../config/schema.js';

/** The names doctor found, as the `api` settings that hold them (name-search.ts, `proposedSettings`). */
export interface NameSettings {
  params?: Record<string, string>;
  endpointParams?: Record<string, Record<string, string>>;
}

/** `api.params` and `api.endpointParams` as they are once the names found are added: what to paste, whole. */
export function mergedSettings(api: Pick<ApiConfig, 'params' | 'endpointParams'>, found: NameSettings): NameSettings {
  const merged: NameSettings = {};
  if (found.params) merged.params = { ...(api.params as Record<string, string>), ...found.params };
  if (found.endpointParams) {
    const endpointParams = { ...(api.endpointParams as Record<string, Record<string, string>>) };
    for (const [endpoint, names] of Object.entries(found.endpointParams))
      endpointParams[endpoint] = { ...endpointParams[endpoint], ...names };
    merged.endpointParams = endpointParams;
  }
  return merged;
}

/**
 * Writes the names found into the config file's `api.params` / `api.endpointParams`, keeping every other setting, and
 * answers the change as a diff. Refuses when no file is read (`path` undefined): the config came from the environment.
 */
export function fixConfigFile(
  path: string | undefined,
  found: NameSettings,
): { ok: true; file: string; diff: string } | { ok: false; why: string } {
  if (path === undefined) {
    return {
      ok: false,
      why: 'the config came only from the environment (no --config, no BVSYNC_CONFIG, no ./bvsync.config.json), so there is no file to write: create bvsync.config.json with the settings above, or pass --config FILE',
    };
  }
  const file = resolve(path);
  const before = readFileSync(file, 'utf8');
  const raw = JSON.parse(before) as { api?: Record<string, unknown> };
  const api = (raw.api ??= {});
  Object.assign(api, mergedSettings(api as Pick<ApiConfig, 'params' | 'endpointParams'>, found));
  const after = `${JSON.stringify(raw, null, 2)}\n`;
  writeFileSync(file, after);
  return { ok: true, file, diff: lineDiff(before, after) };
}

/** The lines removed (`-`) and added (`+`) from one text to the other, in order, by their longest common subsequence. */
export function lineDiff(before: string, after: string): string {
  const a = before.replace(/\n$/, '').split('\n');
  const b = after.replace(/\n$/, '').split('\n');
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  const lines: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1]![j]! >= common[i]![j + 1]!)) lines.push(`- ${a[i++]}`);
    else lines.push(`+ ${b[j++]}`);
  }
  return lines.join('\n');
}
