import type { Command } from 'commander';
import { simulateCommand } from './simulate.js';
import { doctorCommand } from './doctor.js';
import { sqlCommand } from './sql.js';
import { exportCommand } from './export.js';

/** Every command of `bvsync`, one file each; the order is the order of `bvsync --help`. */
export const commands: Array<() => Command> = [simulateCommand, doctorCommand, sqlCommand, exportCommand];
