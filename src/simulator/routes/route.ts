import type { QueryReader } from '../query.js';
import type { SimulatorState } from '../state.js';
import type { BrandWorld } from '../world/world-types.js';

export interface RouteContext {
  sim: SimulatorState;
  brandId: number;
  world: BrandWorld;
  query: QueryReader;
  /** The parsed JSON body of a write; undefined for reads. */
  body: unknown;
  /** Captures of the route's path pattern, decoded. */
  params: string[];
}

interface RouteAnswer {
  body: unknown;
  /** The body already written as JSON (the hot conversations page); used when no drift knob is on. */
  json?: () => string;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH';
  /** Matched against the path after `/customer/v1/brands/{brand_id}`. */
  pattern: RegExp;
  /** Names the route in drift keys and logs, e.g. `conversations`. */
  name: string;
  handle(context: RouteContext): RouteAnswer;
}
