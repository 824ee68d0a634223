import { randomUUID } from 'node:crypto';

/** One entry of `error.details[]`: the wire name of the field and what is wrong with it. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/** An error the API answers with its envelope (spec "Errors"). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function validationError(details: ErrorDetail[]): ApiError {
  const first = details[0];
  const message = first ? `${first.field}: ${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}` : 'invalid request';
  return new ApiError(400, 'validation_error', message, details);
}

export function notFound(message = 'not found'): ApiError {
  return new ApiError(404, 'not_found', message);
}

export function errorEnvelope(error: ApiError): { error: { code: string; message: string; details: ErrorDetail[]; request_id: string } } {
  return { error: { code: error.code, message: error.message, details: error.details, request_id: randomUUID() } };
}
