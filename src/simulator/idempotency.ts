import { LIMITS } from './spec-enums.js';

interface StoredAnswer {
  status: number;
  body: string;
  expiresAt: number;
}

/**
 * Replays of write answers (spec "Endpoints", shared rules): the same idempotency value from the same key
 * gets the first answer back, without writing again, for 24 hours of the simulator's clock.
 */
export class IdempotencyStore {
  private readonly answers = new Map<string, StoredAnswer>();

  get(apiKey: string, value: string, nowMs: number): StoredAnswer | undefined {
    const key = `${apiKey}\u0000${value}`;
    const stored = this.answers.get(key);
    if (stored && stored.expiresAt <= nowMs) {
      this.answers.delete(key);
      return undefined;
    }
    return stored;
  }

  put(apiKey: string, value: string, status: number, body: string, nowMs: number): void {
    if (this.answers.size > 100_000) {
      for (const [key, stored] of this.answers) if (stored.expiresAt <= nowMs) this.answers.delete(key);
    }
    this.answers.set(`${apiKey}\u0000${value}`, { status, body, expiresAt: nowMs + LIMITS.idempotencyTtlMs });
  }
}
