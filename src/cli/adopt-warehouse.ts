import { Command } from 'commander';
import { adoptPrefixWarehouse, writtenFile } from '../engine/writer/prefix-warehouse.js';
import { writerLeaseKey } from '../engine/jobs/queues.js';
import { RunStore } from '../engine/run/run-store.js';
import { leaseHolderWrites } from '../engine/writer/writer-lease.js';
import { duckdbSettings } from '../warehouse/file/duckdb-budget.js';
import { workingPathFor } from '../warehouse/paths.js';
import { openWarehouse } from '../warehouse/warehouse.js';
import { addCommonOptions, commandLogger, readConfig, withRedis, type CommonFlags } from './context.js';
import { UsageError } from './fail.js';
import { descriptionOf } from './commands.js';

/**
 * `bvsync adopt-warehouse`: makes the working file of BVSYNC_DB (made empty if none) the Redis prefix's warehouse on
 * purpose: the way past a writer's OtherWarehouseFileError (src/engine/writer/prefix-warehouse.ts).
 */
export function adoptWarehouseCommand(): Command {
  return addCommonOptions(new Command('adopt-warehouse').description(descriptionOf('adopt-warehouse'))).action(
    async (flags: CommonFlags) => {
      const config = readConfig(flags);
      const log = commandLogger(flags);
      await withRedis(config, log, { allowPrivate: false }, async (connection) => {
        const prefix = config.redisPrefix;
        const holder = await connection.get(writerLeaseKey(prefix));
        if (holder !== null) {
          const writes = await leaseHolderWrites(connection, writerLeaseKey(prefix));
          throw new UsageError(
            `a process holds the writer lease of the Redis prefix "${prefix}"${writes ? ` and writes ${writes}` : ''}: stop it first ` +
              '(every bvsync worker, sync and backfill of the prefix that may load), then run this again',
          );
        }
        const warehouse = await openWarehouse(workingPathFor(config.db), { duckdb: duckdbSettings(config.warehouse) });
        const id = warehouse.id;
        await warehouse.close();
        if (id === undefined) throw new UsageError(`${warehouse.path} has no warehouse id`);
        const before = await adoptPrefixWarehouse(connection, prefix, { id, path: warehouse.path });
        process.stdout.write(
          before?.id === id
            ? `the Redis prefix "${prefix}" already keeps its slices in ${warehouse.path} (warehouse ${id}); nothing changed\n`
            : `the Redis prefix "${prefix}" now keeps its slices in ${warehouse.path} (warehouse ${id})` +
                `${before ? `; it was warehouse ${before.id} (${before.db} on host ${before.host})` : ''}\n`,
        );
        const ours = writtenFile(config.db);
        const unfinished = (await new RunStore(connection, prefix).unfinished()).filter(
          (run) => run.db === undefined || run.db === ours,
        );
        if (before && before.id !== id && unfinished.length)
          process.stdout.write(
            `unfinished runs ${unfinished.map((run) => run.runId).join(', ')} committed slices into the other file: they end incomplete ` +
              'in this one; run their commands again once they end, or drop them with bvsync cancel RUN\n',
          );
      });
    },
  );
}
