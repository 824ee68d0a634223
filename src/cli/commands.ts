import type { Command } from 'commander';
import { applyCommand } from './apply.js';
import { backfillCommand } from './backfill.js';
import { cancelCommand } from './cancel.js';
import { configSchemaCommand } from './config-schema.js';
import { dashboardCommand } from './dashboard.js';
import { demoCommand } from './demo.js';
import { doctorCommand } from './doctor.js';
import { exportCommand } from './export.js';
import { manageSchemaCommand } from './manage-schema.js';
import { planCommand } from './plan.js';
import { reportCommand } from './report.js';
import { schedulerCommand } from './scheduler.js';
import { simulateCommand } from './simulate.js';
import { sqlCommand } from './sql.js';
import { statusCommand } from './status.js';
import { syncCommand } from './sync.js';
import { verifyCommand } from './verify.js';
import { workerCommand } from './worker.js';

/** Every command of `bvsync`, one file each; the order is the order of `bvsync --help`. */
export const commands: Array<() => Command> = [
  demoCommand,
  syncCommand,
  backfillCommand,
  workerCommand,
  schedulerCommand,
  statusCommand,
  cancelCommand,
  dashboardCommand,
  doctorCommand,
  sqlCommand,
  verifyCommand,
  exportCommand,
  reportCommand,
  simulateCommand,
  configSchemaCommand,
  planCommand,
  applyCommand,
  manageSchemaCommand,
];
