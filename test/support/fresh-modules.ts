import { vi } from 'vitest';

// Both projects share a process between files (isolate: false in vitest.config.ts); this gives each file its own
// copy of every module in src/, so state kept in one (src/log.ts's secrets) cannot reach the next file.
vi.resetModules();
