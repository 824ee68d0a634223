/**
 * The SQL test that a `_sync_state` row is complete and was read once its window was over (UTC): a day read while it
 * was today may still gain answers. `dayAfter` is an SQL expression of the day after the slice; `state` its alias.
 */
export function completeOnceOver(dayAfter: string, state = ''): string {
  const column = (name: string) => (state ? `${state}.${name}` : name);
  return `(${column('status')} = 'complete' AND epoch(${column('completed_at')}) >= epoch((${dayAfter})::TIMESTAMP))`;
}
