/**
 * The SQL test that a `_sync_state` row is complete and was read once its window was over: `dayAfter` is an SQL
 * expression of the day after the slice's last day. A day read while it was still today reads complete, yet answers
 * kept arriving until it ended (UTC), so such a slice does not count complete. `state` is the table's alias, if any.
 */
export function completeOnceOver(dayAfter: string, state = ''): string {
  const column = (name: string) => (state ? `${state}.${name}` : name);
  return `(${column('status')} = 'complete' AND epoch(${column('completed_at')}) >= epoch((${dayAfter})::TIMESTAMP))`;
}
