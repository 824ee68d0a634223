import { endpointMapping, wireName, type ParamMapping } from '../../api/param-names.js';
import type { ParamName } from '../../streams/registry.js';
import { endpointNameOf } from './endpoints.js';

export type Verdict = 'verified' | 'wrong' | 'cannot be checked';

/** One row of doctor's parameter table. */
export interface ParamVerdict {
  endpoint: string;
  param: ParamName;
  wire: string;
  verdict: Verdict;
  /** One line: the evidence, or what would make the parameter checkable. */
  why: string;
}

/**
 * What a verdict rests on: the records of the answers, or the request itself (a 400, an invalid value accepted, the
 * `info.query` echo). Only the first is void when the answers' records all failed validation: they read as empty.
 */
export type Evidence = 'records' | 'request';

// Evidence only ever strengthens a row: a wrong name stays wrong whatever else passed, and any evidence beats none.
const STRENGTH: Record<Verdict, number> = { 'cannot be checked': 0, verified: 1, wrong: 2 };

/** The verdict of every (endpoint, parameter) pair, in the order the endpoints declared them. */
export class VerdictBook {
  private readonly rows = new Map<string, ParamVerdict & { placeholder: boolean; evidence: Evidence }>();

  constructor(
    private readonly params: ParamMapping,
    private readonly endpointParams: { readonly [endpoint: string]: ParamMapping | undefined } = {},
  ) {}

  /** The name `param` goes by on the wire to an endpoint of the table: `api.params`, under that endpoint's own names. */
  wire(param: ParamName, endpoint: string): string {
    return wireName(param, endpointMapping(this.params, this.endpointParams, endpointNameOf(endpoint)));
  }

  /** Lists the parameters bvsync sends to an endpoint, so each has a row even when no probe reaches it. */
  declare(endpoint: string, params: readonly ParamName[]): void {
    for (const param of params) {
      const why = 'no probe reached it (an earlier request failed)';
      if (!this.rows.has(key(endpoint, param))) this.set(endpoint, param, 'cannot be checked', why, 'request', true);
    }
  }

  private set(
    endpoint: string,
    param: ParamName,
    verdict: Verdict,
    why: string,
    evidence: Evidence = 'records',
    placeholder = false,
  ): void {
    const row = this.rows.get(key(endpoint, param));
    if (row && !row.placeholder && STRENGTH[row.verdict] >= STRENGTH[verdict]) return;
    const wire = this.wire(param, endpoint);
    this.rows.set(key(endpoint, param), { endpoint, param, wire, verdict, why, placeholder, evidence });
  }

  verified(endpoint: string, param: ParamName, why: string, evidence?: Evidence): void {
    this.set(endpoint, param, 'verified', why, evidence);
  }

  wrong(endpoint: string, param: ParamName, why: string, evidence?: Evidence): void {
    this.set(endpoint, param, 'wrong', why, evidence);
  }

  /**
   * An endpoint whose answers held no record bvsync could read: what its records seemed to show proves nothing, so those
   * rows cannot be checked.
   */
  voidRecordEvidence(endpoint: string, why: string): void {
    for (const row of this.rows.values()) {
      if (
        row.endpoint !== endpoint ||
        row.placeholder ||
        row.evidence !== 'records' ||
        row.verdict === 'cannot be checked'
      )
        continue;
      Object.assign(row, { verdict: 'cannot be checked', why: `${why}; it had looked ${row.verdict}: ${row.why}` });
    }
  }

  unchecked(endpoint: string, param: ParamName, why: string): void {
    this.set(endpoint, param, 'cannot be checked', why);
  }

  verdictOf(endpoint: string, param: ParamName): Verdict | undefined {
    const row = this.rows.get(key(endpoint, param));
    return row && !row.placeholder ? row.verdict : undefined;
  }

  list(): ParamVerdict[] {
    return [...this.rows.values()].map(({ placeholder: _placeholder, evidence: _evidence, ...row }) => row);
  }
}

function key(endpoint: string, param: ParamName): string {
  return `${endpoint}\u0000${param}`;
}

/** Whether `row`'s parameter is verified under the same wire name on another endpoint: `api.params` cannot serve both. */
export function verifiedElsewhere(rows: readonly ParamVerdict[], row: ParamVerdict): boolean {
  return rows.some(
    (other) =>
      other.endpoint !== row.endpoint &&
      other.param === row.param &&
      other.wire === row.wire &&
      other.verdict === 'verified',
  );
}
