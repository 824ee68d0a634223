import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each slow file took on the 2-core box, hooks included, written by test/support/durations-reporter.ts. */
const DURATIONS = join(import.meta.dirname, '..', 'durations.json');

/**
 * Starts the files known to be slow first, longest first, then the others in vitest's own order. A clean clone has no
 * results cache, and vitest's fallback (larger files first) left a minute-long file to run alone at the end.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds: Record<string, number> = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};
    const root = this.ctx.config.root;
    const known = (spec: TestSpecification) => seconds[relative(root, spec.moduleId).split('\\').join('/')] ?? 0;
    const rest = await super.sort(files);
    const order = new Map(rest.map((spec, i) => [spec, i]));
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    return [...rest].sort((a, b) => group(a) - group(b) || known(b) - known(a) || order.get(a)! - order.get(b)!);
  }
}
