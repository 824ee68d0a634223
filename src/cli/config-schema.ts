import { Command } from 'commander';
import { z } from 'zod';
import { configSchema } from '../configuration.js';

/** The JSON Schema of `bvsync.config.json`, generated from the same zod schema that validates it. */
export function configJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }), title: 'bvsync configuration' };
}

export function configSchemaCommand(): Command {
  return new Command('config-schema')
    .description(
      'Print the JSON Schema of bvsync.config.json, for editors: npx bvsync config-schema > bvsync.schema.json',
    )
    .action(() => {
      process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
    });
}
