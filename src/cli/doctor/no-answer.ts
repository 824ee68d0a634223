import { ApiError, NotFoundError, TransientError } from '../../api/errors.js';

/**
 * A failure that leaves the endpoint unread: nothing or a 5xx (transient), a redirect, a 404 (a 404 that means "nothing
 * there" came back as an empty page: client.ts, `notFoundIsEmpty`).
 */
export function isNoAnswer(error: unknown): boolean {
  if (error instanceof TransientError || error instanceof NotFoundError) return true;
  return error instanceof ApiError && error.status !== undefined && error.status >= 300 && error.status < 400;
}
