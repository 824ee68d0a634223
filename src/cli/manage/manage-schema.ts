import { Command } from 'commander';
import { desiredStateJsonSchema } from '../../manage/desired-state-schema.js';

export function manageSchemaCommand(): Command {
  return new Command('manage-schema')
    .description(
      'Print the JSON Schema of the desired-state files of plan and apply, for editors: npx bvsync manage-schema > bvsync.manage.schema.json',
    )
    .action(() => {
      process.stdout.write(`${JSON.stringify(desiredStateJsonSchema(), null, 2)}\n`);
    });
}
