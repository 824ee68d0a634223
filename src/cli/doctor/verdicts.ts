import { endpointMapping, wireName, type ParamMapping } from '../../api/param-names.js';
import type { ParamName } from '../../streams/registry.js';
import { DECLARED } from './endpoints.js';

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

// Evidence only ever strengthens a row: a wrong name stays wrong whatever else passed, and any evidence beats none.
const STRENGTH: Record<Verdict, number> = { 'cannot be checked': 0, verified: 1, wrong: 2 };

/** The verdict of every (endpoint, parameter) pair, in the order the endpoints declared them. */
export class VerdictBook {
  private readonly rows = new Map<string, ParamVerdict & { placeholder: boolean }>();

  constructor(
    private readonly params: ParamMapping,
    private readonly endpointParams: { readonly [endpoint: string]: ParamMapping | undefined } = {},
  ) {}

  /** The name `param` goes by on the wire to an endpoint of the table: `api.params`, under that endpoint's own names. */
  wire(param: ParamName, endpoint: string): string {
    const declared = DECLARED[endpoint];
    return wireName(param, declared ? endpointMapping(this.params, this.endpointParams, declared.name) : this.params);
  }

  /** Lists the parameters bvsync sends to an endpoint, so each has a row even when no probe reaches it. */
  declare(endpoint: string, params: readonly ParamName[], why = 'no probe reached it (an earlier request failed)'): void {
    for (const param of params) {
      const key = `${endpoint}\u0000${param}`;
      if (!this.rows.has(key)) this.rows.set(key, { endpoint, param, wire: this.wire(param, endpoint), verdict: 'cannot be checked', why, placeholder: true });
    }
  }

  set(endpoint: string, param: ParamName, verdict: Verdict, why: string): void {
    const key = `${endpoint}\u0000${param}`;
    const row = this.rows.get(key);
    if (row && !row.placeholder && STRENGTH[row.verdict] >= STRENGTH[verdict]) return;
    this.rows.set(key, { endpoint, param, wire: this.wire(param, endpoint), verdict, why, placeholder: false });
  }

  verified(endpoint: string, param: ParamName, why: string): void {
    this.set(endpoint, param, 'verified', why);
  }

  wrong(endpoint: string, param: ParamName, why: string): void {
    this.set(endpoint, param, 'wrong', why);
  }

  unchecked(endpoint: string, param: ParamName, why: string): void {
    this.set(endpoint, param, 'cannot be checked', why);
  }

  verdictOf(endpoint: string, param: ParamName): Verdict | undefined {
    const row = this.rows.get(`${endpoint}\u0000${param}`);
    return row && !row.placeholder ? row.verdict : undefined;
  }

  list(): ParamVerdict[] {
    return [...this.rows.values()].map(({ placeholder: _placeholder, ...row }) => row);
  }
}
