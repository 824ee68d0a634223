/** Track pages: 1 to 200 urls per request (spec, "Limits"; endpoint 1). */
export const TRACK_URLS_PER_REQUEST = 200;
/** Create topics: up to 20 topics per request (spec, "Limits"; endpoint 4). */
export const TOPICS_PER_REQUEST = 20;
/** Create topics: up to 100 scenarios per topic (spec, "Limits"; endpoint 4). */
export const SCENARIOS_PER_TOPIC = 100;
/** Create competitors: up to 50 per request (spec, "Limits"; endpoint 6). */
export const COMPETITORS_PER_REQUEST = 50;
