import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readValue } from '../../src/warehouse/read-rows.js';
import { inTransaction } from '../../src/warehouse/transaction.js';

let instance: DuckDBInstance;
let connection: DuckDBConnection;
const rows = async () => Number(await readValue(connection, 'SELECT count(*) FROM t'));
const mapped = (error: unknown) => new Error(`mapped: ${(error as Error).message}`);

beforeEach(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run('CREATE TABLE t (x INTEGER)');
});
afterEach(() => {
  connection.closeSync();
  instance.closeSync();
});

describe('inTransaction', () => {
  it('commits the work once the fence confirms', async () => {
    const fence = { confirm: async () => 7 };
    expect(
      await inTransaction(
        connection,
        { fence },
        async () => (await connection.run('INSERT INTO t VALUES (1)'), 'done'),
      ),
    ).toBe('done');
    expect(await rows()).toBe(1);
  });

  it('rolls back when the work or the fence fails, and throws what failure makes of it', async () => {
    const work = async () => void (await connection.run('INSERT INTO t VALUES (1)'));
    await expect(
      inTransaction(connection, { failure: mapped }, async () => (await work(), Promise.reject(new Error('bad row')))),
    ).rejects.toThrow('mapped: bad row');
    const fence = { confirm: () => Promise.reject(new Error('lease lost')) };
    await expect(inTransaction(connection, { fence, failure: mapped }, work)).rejects.toThrow('mapped: lease lost');
    expect(await rows()).toBe(0);
  });

  it("throws a failed BEGIN as it is, unmapped: no work ran, so a caller must not call it the work's failure", async () => {
    await connection.run('BEGIN TRANSACTION');
    const error = await inTransaction(connection, { failure: mapped }, async () => undefined).catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      /^TransactionContext Error: cannot start a transaction within a transaction/,
    );
  });
});
