import { Command } from 'commander';
import { z } from 'zod';
import { configSchema } from '../configuration.js';
import { descriptionOf } from './commands.js';

/** The JSON Schema of `bvsync.config.json`, generated from the same zod schema that validates it. */
export function configJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }), title: 'bvsync configuration' };
}

export function configSchemaCommand(): Command {
  return new Command('config-schema').description(descriptionOf('config-schema')).action(() => {
    process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  });
}
