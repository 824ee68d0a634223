import type { Command } from 'commander';
import { simulateCommand } from './simulate.js';
import { doctorCommand } from './doctor.js';

/** Every command of `bvsync`, one file each; the order is the order of `bvsync --help`. */
export const commands: Array<() => Command> = [simulateCommand, doctorCommand];
