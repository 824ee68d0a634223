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
}

export function simulatorValidationError(details: SimulatorErrorDetail[]): SimulatorApiError {
  const first = details[0];
  const message = first
    ? `${first.field}: ${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`
    : 'invalid request';
  return new SimulatorApiError(400, 'validation_error', message, details);
}

export function simulatorNotFound(message = 'not found'): SimulatorApiError {
  return new SimulatorApiError(404, 'not_found', message);
}

export function simulatorErrorEnvelope(error: SimulatorApiError): {
  error: { code: string; message: string; details: SimulatorErrorDetail[]; request_id: string };
} {
  return { error: { code: error.code, message: error.message, details: error.details, request_id: randomUUID() } };
}
