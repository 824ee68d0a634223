import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendBody } from './respond.js';
import { simDayString } from './sim-days.js';
import type { SimulatorState } from './state.js';
import { errorMessage } from '../format.js';

const json = (res: ServerResponse, status: number, body: unknown) => sendBody(res, status, JSON.stringify(body));

/**
 * The admin endpoints (knobs, clock, requests, info), keyless on the simulator's own listener (127.0.0.1 by default).
 * They are not in the request log, and never faulted or rate limited.
 */
export function handleAdmin(
  sim: SimulatorState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  body: string,
): void {
  let input: unknown;
  if (body.length > 0) {
    try {
      input = JSON.parse(body);
    } catch {
      return json(res, 400, { error: 'body is not JSON' });
    }
  }
  try {
    if (path === '/__admin/knobs' && req.method === 'GET') return json(res, 200, sim.knobs);
    if (path === '/__admin/knobs' && req.method === 'POST') return json(res, 200, sim.setKnobs(input ?? {}));
    if (path === '/__admin/clock' && req.method === 'POST') {
      const days = (input as { advanceDays?: unknown } | undefined)?.advanceDays;
      if (typeof days !== 'number' || !Number.isInteger(days) || days < 0)
        return json(res, 400, { error: 'advanceDays must be an integer >= 0' });
      sim.clock.advance(days);
      return json(res, 200, { today: simDayString(sim.clock.today()) });
    }
    if (path === '/__admin/requests' && req.method === 'GET') return json(res, 200, { data: sim.requestLog.all() });
    if (path === '/__admin/requests' && req.method === 'DELETE') {
      sim.requestLog.clear();
      return json(res, 200, { cleared: true });
    }
    if (path === '/__admin/info' && req.method === 'GET') {
      return json(res, 200, {
        brands: sim.brands,
        forbidden_brand: sim.forbiddenBrand,
        today: simDayString(sim.clock.today()),
        first_day: simDayString(sim.firstDay),
        cache: sim.store.cacheStats(),
        in_flight: sim.inFlight,
      });
    }
  } catch (error) {
    return json(res, 400, { error: errorMessage(error) });
  }
  return json(res, 404, { error: `no admin endpoint ${req.method} ${path}` });
}
