import { Command } from 'commander';
import { desiredStateJsonSchema } from '../../manage/desired-state-schema.js';
import { descriptionOf } from '../commands.js';

export function manageSchemaCommand(): Command {
  return new Command('manage-schema').description(descriptionOf('manage-schema')).action(() => {
    process.stdout.write(`${JSON.stringify(desiredStateJsonSchema(), null, 2)}\n`);
  });
}
