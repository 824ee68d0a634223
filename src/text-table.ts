import Table from 'cli-table3';

/**
 * A table for the terminal: a rule under the header and none between rows, so a long result stays readable, and
 * no colours, so it reads the same in a log file.
 */
export function textTable(head: string[], colAligns?: Array<'left' | 'right' | 'center'>): InstanceType<typeof Table> {
  return new Table({
    head,
    style: { head: [], border: [], compact: true },
    ...(colAligns ? { colAligns } : {}),
  });
}
