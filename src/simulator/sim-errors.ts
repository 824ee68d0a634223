import { randomUUID } from 'node:crypto';

/** One entry of `error.details[]`: the wire name of the field and what is wrong with it. */
export interface SimulatorErrorDetail {
  field: string;
  message: string;
}

/** An error the API answers with its envelope (spec "Errors"). */
export class SimulatorApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: SimulatorErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The error envelope as JSON, with a request id of its own. */
  envelopeJson(): string {
    const { code, message, details } = this;
    return JSON.stringify({ error: { code, message, details, request_id: randomUUID() } });
  }
}

/** A 400 naming the first problem; `details` holds one at least. */
export function simulatorValidationError(details: SimulatorErrorDetail[]): SimulatorApiError {
  const [first] = details;
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return new SimulatorApiError(400, 'validation_error', `${first!.field}: ${first!.message}${more}`, details);
}

export function simulatorNotFound(message: string): SimulatorApiError {
  return new SimulatorApiError(404, 'not_found', message);
}
