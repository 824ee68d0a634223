import { PermanentError } from './errors.js';

/**
 * A write answered with a body that does not match the spec. Not retried: the write may have happened, and a retry
 * with the same idempotency value would only replay the same answer.
 */
export class WriteAnswerError extends PermanentError {
  override readonly code = 'bad_write_answer';
}
