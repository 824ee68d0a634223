import { ApiError, NotFoundError, TransientError, isBadEnvelope } from '../../api/errors.js';

/**
 * A failure that leaves the endpoint unread: nothing or a 5xx (transient), a redirect, a 404 (a 404 that means "nothing
 * there" came back as an empty page: client.ts, `notFoundIsEmpty`).
 */
export function isNoAnswer(error: unknown): boolean {
  if (error instanceof TransientError || error instanceof NotFoundError) return true;
  return error instanceof ApiError && error.status !== undefined && error.status >= 300 && error.status < 400;
}

/**
 * The API answering with what bvsync cannot read: a 2xx whose body is not JSON (a proxy's HTML page, JSON cut short) or
 * not the spec's envelope (`data: null`). A sync making the same read fails the same way, every attempt.
 */
export function isUnreadableAnswer(error: unknown): boolean {
  if (!(error instanceof TransientError) || !(isBadEnvelope(error) || error.reason === 'bad_body')) return false;
  return error.status === undefined || (error.status >= 200 && error.status < 300);
}
