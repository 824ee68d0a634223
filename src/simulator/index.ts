import type { Knobs } from './knobs.js';
import { SIMULATOR_DEFAULTS, type SimulatorOptions } from './options.js';
import type { LoggedRequest } from './request-log.js';
import { listen } from './server.js';
import { SimulatorState } from './state.js';
import { createTruth, type SimulatorTruth } from './truth.js';

export type { Knobs, LoggedRequest, SimulatorOptions, SimulatorTruth };
export { ENGINES } from './world/engines.js';

/** A simulator serving the API; `url` is the base URL, the API lives under `${url}/customer/v1/...`. */
export interface RunningSimulator {
  url: string;
  apiKey: string;
  /** Readable brand ids, 1..N. */
  brands: number[];
  /** Brand N+1: exists, but the key may not read it (403 brand_access_denied). */
  forbiddenBrand: number;
  close(): Promise<void>;
  /** Changes knobs at run time (validated); returns them all. */
  setKnobs(partial: Partial<Knobs>): Knobs;
  /** Moves the simulator's today forward. */
  advanceClock(days: number): void;
  /** Every API request so far (admin requests excluded): method, path, query, status, time. */
  requestLog(): LoggedRequest[];
  clearRequestLog(): void;
  truth: SimulatorTruth;
}

/** Starts a simulator on `options.port` (default 0: a free port). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = new SimulatorState(options);
  const handle = await listen(sim, options.port ?? 0, options.host ?? SIMULATOR_DEFAULTS.host);
  return {
    url: handle.url,
    apiKey: sim.apiKey,
    brands: sim.brands,
    forbiddenBrand: sim.forbiddenBrand,
    close: () => handle.close(),
    setKnobs: (partial) => sim.setKnobs(partial),
    advanceClock: (days) => sim.clock.advance(days),
    requestLog: () => sim.requestLog.all(),
    clearRequestLog: () => sim.requestLog.clear(),
    truth: createTruth(sim),
  };
}
