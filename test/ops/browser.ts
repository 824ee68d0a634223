import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium, which `.ci/run` installs when missing; the browser tests skip without it. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const chromiumMissing = !existsSync(CHROMIUM_PATH);
export const CHROMIUM_SKIP_REASON = `${CHROMIUM_PATH} is not installed (apt-get install chromium); browser tests skipped`;

// Headless, no GPU, and nothing that calls home, so the tests run the same offline and in containers.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface HeadlessChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile that is deleted on close. */
export async function launchChromium(viewport = { width: 1200, height: 800 }): Promise<HeadlessChromium> {
  const profile = mkdtempSync(join(tmpdir(), 'bvsync-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go: a temp folder, or `docs/` when `BVSYNC_UPDATE_SCREENSHOTS=1` (to refresh those of docs/operations.md). */
export function screenshotPath(tempFolder: string, name: string): string {
  return process.env.BVSYNC_UPDATE_SCREENSHOTS === '1'
    ? join(import.meta.dirname, '..', '..', 'docs', name)
    : join(tempFolder, name);
}
