import { PermanentError } from '../errors.js';

/**
 * A write answered with a body that does not match the spec. Not retried: the write may have happened, and a retry
 * with the same idempotency value would only replay the same answer.
 */
export class WriteAnswerError extends PermanentError {
  override readonly code = 'bad_write_answer';
}

/**
 * What a write's answer says in `info` (spec, "Bulk write envelope": `dry_run`, `written`) about whether anything was
 * written, for the message of an answer bvsync cannot read otherwise (test/manage/dry-run-shapes.int.test.ts).
 */
export function writtenPerInfo(answer: unknown, sentAsDryRun: boolean): string {
  const info = answer !== null && typeof answer === 'object' ? (answer as { info?: unknown }).info : undefined;
  const { dry_run: dryRun, written } =
    info !== null && typeof info === 'object' ? (info as { dry_run?: unknown; written?: unknown }) : {};
  const sent = sentAsDryRun ? ' (sent as a dry run)' : '';
  if (typeof written === 'number' && written > 0)
    return `its info.written is ${written}: the API says it wrote ${written} item${written === 1 ? '' : 's'}${sent}`;
  if (written === 0 && dryRun === true)
    return 'its info.dry_run is true and info.written 0: the API says it wrote nothing';
  if (written === 0) return `its info.written is 0: the API says it wrote nothing${sent}`;
  if (dryRun === true) return 'its info.dry_run is true and it has no info.written: the API says it only checked';
  return `it has no info.written, so the API accepted the request and may have written${sent}`;
}
