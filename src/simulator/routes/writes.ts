import type { Route } from "./route.js";
export const writeRoutes: Route[] = [];
