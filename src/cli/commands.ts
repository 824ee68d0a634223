import type { Command } from 'commander';

export interface CommandEntry {
  name: string;
  /** The command's module, imported when the command runs: its factory. */
  load(): Promise<() => Command>;
}

/**
 * Every command of `bvsync`, one file each; the order is the order of `bvsync --help`. A command's module is imported
 * only when it runs, or for the whole help: importing every one (DuckDB, BullMQ, undici, the simulator) took 2.1 s of
 * each command's start on the 2-core box, where `bvsync sql` needs 0.9 s of it and `bvsync simulate` 0.6.
 */
export const commands: readonly CommandEntry[] = [
  { name: 'demo', load: async () => (await import('./demo.js')).demoCommand },
  { name: 'sync', load: async () => (await import('./sync.js')).syncCommand },
  { name: 'backfill', load: async () => (await import('./backfill.js')).backfillCommand },
  { name: 'worker', load: async () => (await import('./worker.js')).workerCommand },
  { name: 'scheduler', load: async () => (await import('./scheduler.js')).schedulerCommand },
  { name: 'status', load: async () => (await import('./status.js')).statusCommand },
  { name: 'cancel', load: async () => (await import('./cancel.js')).cancelCommand },
  { name: 'adopt-warehouse', load: async () => (await import('./adopt-warehouse.js')).adoptWarehouseCommand },
  { name: 'rate', load: async () => (await import('./rate.js')).rateCommand },
  { name: 'dashboard', load: async () => (await import('./dashboard.js')).dashboardCommand },
  { name: 'doctor', load: async () => (await import('./doctor.js')).doctorCommand },
  { name: 'sql', load: async () => (await import('./sql.js')).sqlCommand },
  { name: 'verify', load: async () => (await import('./verify.js')).verifyCommand },
  { name: 'export', load: async () => (await import('./export.js')).exportCommand },
  { name: 'report', load: async () => (await import('./report.js')).reportCommand },
  { name: 'simulate', load: async () => (await import('./simulate.js')).simulateCommand },
  { name: 'config-schema', load: async () => (await import('./config-schema.js')).configSchemaCommand },
  { name: 'plan', load: async () => (await import('./plan.js')).planCommand },
  { name: 'apply', load: async () => (await import('./apply.js')).applyCommand },
  { name: 'manage-schema', load: async () => (await import('./manage-schema.js')).manageSchemaCommand },
];

/** Every command's factory, in the order of the help. */
export function loadCommands(): Promise<Array<() => Command>> {
  return Promise.all(commands.map((entry) => entry.load()));
}
