import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { log, registerSecret } from '../log.js';
import { errnoOf } from '../format.js';
import { ConfigError } from './config-error.js';

export interface SecretFileOptions {
  /** Told when the file is readable by others (its name and mode, never its content); default: the process logger. */
  warn?: (message: string) => void;
}

/**
 * A secret from a file (Docker or Kubernetes), trailing line breaks trimmed, registered so no log line prints it.
 * Unreadable or empty is a `ConfigError`; readable by others, a warning (test/config/secret-file.test.ts).
 */
export function readSecretFile(path: string, variable: string, options: SecretFileOptions = {}): string {
  const where = `${variable} (${resolve(path)})`;
  let text: string;
  let mode: number;
  let gid: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile())
      throw new ConfigError('the environment', [
        `${where}: not a file; expected the path of a file that holds the secret alone`,
      ]);
    ({ mode, gid } = stat);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError('the environment', [
      `${where}: cannot read the file (${errnoOf(error) ?? 'unknown error'}); check the path and that this process's user may read it`,
    ]);
  }
  const value = text.replace(/[\r\n]+$/, '');
  if (value === '') throw new ConfigError('the environment', [`${where}: the file is empty; write the secret into it`]);
  registerSecret(value);
  if (readableByStrangers(mode, gid)) {
    const warn = options.warn ?? ((message: string) => log.warn(message));
    warn(
      `${where} is readable by ${mode & 0o004 ? 'every user' : 'another group'} (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 it, or give its secret volume defaultMode 0400 (0440 with the pod's fsGroup)`,
    );
  }
  return value;
}

/**
 * Others may read it: any user, or a group this process is not in. A group of its own (a Kubernetes pod's fsGroup,
 * which makes secret files 0440) is no stranger.
 */
function readableByStrangers(mode: number, gid: number): boolean {
  if (mode & 0o004) return true;
  if (!(mode & 0o040)) return false;
  const ownGroups = new Set([process.getgid?.(), ...(process.getgroups?.() ?? [])]);
  return !ownGroups.has(gid);
}

/** A secret the environment gave, and the variable that gave it (`BVSYNC_API_KEY` or `BVSYNC_API_KEY_FILE`). */
export interface EnvSecret {
  value: string;
  variable: string;
}

/**
 * A secret setting from `NAME` or from the file `NAME_FILE` names; both set is a `ConfigError` (which one was meant is
 * not for bvsync to guess). Undefined when neither is set.
 */
export function secretFromEnv(
  env: NodeJS.ProcessEnv,
  name: string,
  options: SecretFileOptions = {},
): EnvSecret | undefined {
  const fileVariable = `${name}_FILE`;
  const direct = env[name];
  const file = env[fileVariable];
  if (direct && file) {
    throw new ConfigError('the environment', [
      `${name} and ${fileVariable} are both set: unset one (${fileVariable} keeps the secret out of the process's environment)`,
    ]);
  }
  if (file) return { value: readSecretFile(file, fileVariable, options), variable: fileVariable };
  if (direct) return { value: direct, variable: name };
  return undefined;
}
