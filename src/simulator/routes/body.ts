import { simulatorValidationError, type SimulatorErrorDetail } from '../sim-errors.js';

/** Reads a JSON write body field by field, collecting every problem as `error.details[]` with its path. */
export class BodyReader {
  readonly errors: SimulatorErrorDetail[] = [];

  constructor(readonly body: unknown) {}

  object(): Record<string, unknown> {
    if (this.body === undefined) return {};
    if (this.body === null || typeof this.body !== 'object' || Array.isArray(this.body))
      return this.fail('body', 'must be a JSON object') ?? {};
    return this.body as Record<string, unknown>;
  }

  fail(field: string, message: string): undefined {
    this.errors.push({ field, message });
    return undefined;
  }

  string(value: unknown, field: string, required = false): string | undefined {
    if (value === undefined) return required ? this.fail(field, 'is required') : undefined;
    if (typeof value !== 'string') return this.fail(field, 'must be a string');
    if (required && value === '') return this.fail(field, 'must not be empty');
    return value;
  }

  integer(value: unknown, field: string): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) return this.fail(field, 'must be an integer');
    return value;
  }

  boolean(value: unknown, field: string): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') return this.fail(field, 'must be true or false');
    return value;
  }

  array(
    value: unknown,
    field: string,
    limits: { min?: number; max?: number; required?: boolean },
  ): unknown[] | undefined {
    if (value === undefined) return limits.required ? this.fail(field, 'is required') : undefined;
    if (!Array.isArray(value)) return this.fail(field, 'must be an array');
    if (limits.min !== undefined && value.length < limits.min)
      return this.fail(field, `must have at least ${limits.min} item${limits.min === 1 ? '' : 's'}`);
    if (limits.max !== undefined && value.length > limits.max)
      return this.fail(field, `must have at most ${limits.max} items`);
    return value;
  }

  record(value: unknown, field: string): Record<string, unknown> | undefined {
    if (value === undefined) return undefined;
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return this.fail(field, 'must be an object');
    return value as Record<string, unknown>;
  }

  finish(): void {
    if (this.errors.length > 0) throw simulatorValidationError(this.errors);
  }
}
