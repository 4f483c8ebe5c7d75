/**
 * One Chromium for a Jest run's browser tests. The Jest global setup launches it as a Playwright
 * browser server when the run has browser tests to run (test/**\/*.browser.test.ts, as the run's
 * path patterns select them), and the teardown closes it; each test file connects to it and opens
 * a browser context of its own (cookies, storage and permissions apart, as a profile of its own
 * kept them apart before). Launching Chromium per file cost about a second of CPU each.
 *
 * Without a shared one (a file run outside such a run, or the launch failed) a file launches its
 * own Chromium, and fails there with what to install when there is none: a test never passes
 * without a browser.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumPath } from '../../scripts/prerequisites.cjs';

/** The run's browser server, as its ws:// endpoint (set by the Jest global setup). */
export const SHARED_CHROMIUM_ENDPOINT_ENV = 'SIGNET_TEST_CHROMIUM_ENDPOINT';

/** Chromium: $SIGNET_CHROMIUM or the usual path (scripts/prerequisites.cjs; .ci/run installs Debian's). */
export const CHROMIUM = chromiumPath() ?? '/usr/bin/chromium';

/** How every test Chromium is launched: headless, nothing that reaches out or syncs. */
export const CHROMIUM_LAUNCH_OPTIONS = {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
} as const;

/** The devDependency the browser tests need, at the version they were written against. */
const PLAYWRIGHT = { name: 'playwright-core', version: '1.65.1' } as const;

// playwright-core's types are not needed to drive it; keep the tests compiling without the package.
export type Browser = any;
interface BrowserServer {
  wsEndpoint(): string;
  close(): Promise<void>;
}
interface Chromium {
  launch(options: Record<string, unknown>): Promise<Browser>;
  launchServer(options: Record<string, unknown>): Promise<BrowserServer>;
  connect(wsEndpoint: string, options?: Record<string, unknown>): Promise<Browser>;
}

/** playwright-core's chromium, or an error saying what to install. */
export function playwrightChromium(): Chromium {
  try {
    return (require('playwright-core') as { chromium: Chromium }).chromium;
  } catch (cause) {
    throw new Error(`${PLAYWRIGHT.name} is not installed. Add "${PLAYWRIGHT.name}": "${PLAYWRIGHT.version}" to devDependencies and run npm install: the portal's browser tests drive Chromium with it.`, { cause });
  }
}

/**
 * A browser for one test file: the run's shared Chromium when there is one, else one of its own.
 * `close()` closes the file's contexts and disconnects (shared), or closes the browser (own).
 */
export async function testBrowser(): Promise<Browser> {
  const chromium = playwrightChromium();
  const shared = process.env[SHARED_CHROMIUM_ENDPOINT_ENV];
  return shared === undefined || shared === '' ? chromium.launch({ ...CHROMIUM_LAUNCH_OPTIONS }) : chromium.connect(shared, { timeout: 30_000 });
}

/** Whether the run's path patterns select any browser test file (`isMatch` as Jest applies the patterns). */
export function runHasBrowserTests(testRoot: string, isMatch: (absPath: string) => boolean): boolean {
  return browserTestFiles(testRoot).some(isMatch);
}

function browserTestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return browserTestFiles(path);
    return entry.name.endsWith('.browser.test.ts') ? [path] : [];
  });
}

/**
 * Launches the run's Chromium as a browser server, for the global setup; undefined when this
 * machine has no Chromium (each browser test then fails, or skips where allowed, on its own).
 */
export async function launchSharedChromium(): Promise<BrowserServer | undefined> {
  if (chromiumPath() === undefined) return undefined;
  return playwrightChromium().launchServer({ ...CHROMIUM_LAUNCH_OPTIONS });
}
