/**
 * Test support for the client portal's browser tests: Debian's Chromium (/usr/bin/chromium, or
 * $SIGNET_CHROMIUM) driven by playwright-core against `npm start`'s gateway (local/main.ts in a
 * child process, a temporary SIGNET_HOME, a free port), each file in a browser context of its own
 * on the run's one Chromium (./shared-chromium.ts), and the bounded waits the tests assert
 * with (playwright-core has no assertion library: these wait for the page to reach a state, then
 * assert with Jest; on timeout the last failed assertion is thrown).
 *
 * Without Chromium or playwright-core a test fails and says what to install; it never passes
 * without a browser.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spkiPemOf } from '../../lambda/core/keys';
import { nextTestKey } from './test-keys';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { readClientDir } from '../../local/client-dir';
import { readLocalState } from '../../local/local-state';
import { localPaths } from '../../local/signet-home';
import { readStandInCredentials } from '../../local/secrets-manager-credentials';
import { missingMessage } from '../../scripts/prerequisites.cjs';
import { type GatewayProcess, REPO_ROOT, type TestSigner, sendSigned, startGatewayProcess } from '../local/gateway-process';
import { testNeeding } from './prerequisites';
import { type Browser, CHROMIUM, testBrowser } from './shared-chromium';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

/** `test`, for tests that need Chromium (skipped only where SIGNET_ALLOW_SKIP=chromium). */
export const browserTest = testNeeding('chromium');
/** Where the browser tests keep their screenshots (reports/ is git-ignored; CI keeps it as an artifact). */
export const SCREENSHOTS = join(REPO_ROOT, 'reports', 'portal-screenshots');

// playwright-core's types are not needed to drive it; keep the tests compiling without the package.
export type Page = any;
export type BrowserContext = any;
export type Locator = any;

/** A running gateway with a browser on it. */
export interface PortalSession {
  readonly home: string;
  readonly gateway: GatewayProcess;
  /** The operator `npm start` bootstraps ($SIGNET_HOME/admin). */
  readonly admin: TestSigner & { readonly fingerprint: string; readonly keyText: string; readonly dir: string };
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught errors of the page. */
  readonly pageErrors: string[];
  /** console.error lines of the page. */
  readonly consoleErrors: string[];
  close(): Promise<void>;
}

/**
 * Starts the gateway, and opens a browser context of this file's own (on the run's Chromium).
 * @param name names the temporary folder
 */
export async function startPortalSession(name: string, viewport: { width: number; height: number } = { width: 1280, height: 1000 }): Promise<PortalSession> {
  if (!existsSync(CHROMIUM)) throw new Error(missingMessage('chromium', `Chromium is not installed at ${CHROMIUM}`));
  const home = mkdtempSync(join(tmpdir(), `signet-${name}-home-`));
  let gateway: GatewayProcess | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  const close = async () => {
    await context?.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await gateway?.stop('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  };
  // The browser connects (or launches) while the gateway starts.
  const opening: Promise<Browser | undefined> = testBrowser();
  try {
    gateway = await startGatewayProcess(home, { seedKeys: true });
    browser = await opening;
    const dir = join(home, 'admin');
    const client = readClientDir(dir);
    const admin = { clientId: client.clientId, privateKey: client.key.key, fingerprint: client.key.fingerprint, keyText: readFileSync(join(dir, 'private.pkcs8.b64'), 'utf8').trim(), dir };
    context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    const consoleErrors: string[] = [];
    page.on('pageerror', (error: Error) => pageErrors.push(error.message));
    pageErrorsOf.set(page, pageErrors);
    page.on('console', (message: any) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    return { home, gateway, admin, context, page, pageErrors, consoleErrors, close };
  } catch (error) {
    browser ??= await opening.catch(() => undefined);
    await close();
    throw error;
  }
}

/** Signs in on `page` with the key and client-id files of a client directory. */
export async function signIn(page: Page, gatewayUrl: string, dir: string): Promise<void> {
  await page.goto(`${gatewayUrl}/portal/`);
  await page.getByLabel('Admin private key file').setInputFiles([join(dir, 'private.pkcs8.b64'), join(dir, 'client-id')]);
  await page.getByRole('button', { name: 'Use this key' }).click();
  await visible(page.locator('#signer-status'));
}

/** A signed registry call from Node (what the page's effects are checked with). */
export async function registryCall(
  gateway: GatewayProcess,
  signer: TestSigner,
  path: string,
  send: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, any> }> {
  const answer = await sendSigned(signer, `${gateway.url}${path}`, { method: send.method, ...(send.body === undefined ? {} : { body: JSON.stringify(send.body) }) });
  return { status: answer.status, body: answer.body as Record<string, any> };
}

/** Creates a client through the registry API (a fresh key unless one is given); returns its record. */
export async function createClientFor(gateway: GatewayProcess, signer: TestSigner, body: Record<string, unknown>): Promise<Record<string, any>> {
  const answer = await registryCall(gateway, signer, '/registry/clients', {
    body: { networkWhitelist: ['0.0.0.0'], roles: ['demo'], publicKey: spkiPemOf(nextTestKey().publicKey), ...body },
  });
  if (answer.status !== 201) throw new Error(`creating ${String(body.name)} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/**
 * The gateway's own store (DynamoDB Local, from $SIGNET_HOME/local.json) with a clock of its
 * own: what a test uses to give a key an old addedAt, as if it had been added `daysAgo` days ago.
 */
export function storeAt(home: string, daysAgo: number): DynamoClientStore {
  const local = readLocalState(localPaths(home));
  const localCredentials = readStandInCredentials(join(home, 'secrets-manager-credentials.json'));
  return new DynamoClientStore({ tableName: local.tableName, client: createDocumentClient({ endpoint: local.dynamoDbEndpoint, localCredentials }), now: () => new Date(Date.now() - daysAgo * 86_400_000), keySourceKeepDays: local.keySourceKeepDays ?? DEFAULT_KEY_SOURCE_KEEP_DAYS });
}

/** Makes the screenshot folder and says where it is (once per run). */
export function screenshotFolder(): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return SCREENSHOTS;
}

// ------------------------------------------------------------------ waiting on the page

const WAIT_MS = 15_000;

export async function eventually<T>(read: () => Promise<T>, check: (value: T) => void): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    let value: T | undefined;
    try {
      value = await read();
      check(value);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * What the page shows, for the message of a wait that timed out: its open dialogs, toasts, list
 * error and focused element, and its uncaught errors (a wait that fails says what it found instead).
 */
async function pageNow(page: Page): Promise<string> {
  try {
    const seen = await page.evaluate(() => {
      const text = (node: Element | null) => (node?.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 200);
      const nameOf = (node: Element) => text(document.getElementById(node.getAttribute('aria-labelledby') ?? '')) || node.getAttribute('aria-label') || node.id;
      const active = document.activeElement;
      return {
        dialogs: Array.from(document.querySelectorAll('dialog[open]')).map(nameOf),
        toasts: Array.from(document.querySelectorAll('#toasts .toast')).map(text),
        listError: text(document.getElementById('list-error')),
        focused: active === null ? '' : `${active.tagName.toLowerCase()}${active.id ? `#${active.id}` : ''} ${active.getAttribute('aria-label') ?? text(active).slice(0, 60)}`,
      };
    });
    return JSON.stringify({ ...seen, pageErrors: pageErrorsOf.get(page) ?? [] });
  } catch (error) {
    return `(the page could not be read: ${error instanceof Error ? error.message : String(error)})`;
  }
}

/** Each session's page and its uncaught errors, for {@link pageNow}. */
const pageErrorsOf = new WeakMap<object, string[]>();

const waitForState = async (locator: Locator, state: 'visible' | 'hidden') => {
  try {
    await locator.waitFor({ state, timeout: WAIT_MS });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\nThe page when the wait ended: ${await pageNow(locator.page())}`, { cause: error });
  }
};
export const visible = (locator: Locator) => waitForState(locator, 'visible');
export const hidden = (locator: Locator) => waitForState(locator, 'hidden');
export const hasText = (locator: Locator, expected: string | RegExp) =>
  eventually(() => locator.innerText({ timeout: WAIT_MS }) as Promise<string>, (text) => (typeof expected === 'string' ? expect(text.trim()).toBe(expected) : expect(text).toMatch(expected)));
export const containsText = (locator: Locator, expected: string) => eventually(() => locator.innerText({ timeout: WAIT_MS }) as Promise<string>, (text) => expect(text).toContain(expected));
export const texts = (locator: Locator, expected: string[]) => eventually(() => locator.allInnerTexts() as Promise<string[]>, (all) => expect(all.map((t) => t.trim())).toEqual(expected));
export const hasAttribute = (locator: Locator, name: string, expected: string | null) =>
  eventually(() => locator.getAttribute(name, { timeout: WAIT_MS }) as Promise<string | null>, (value) => expect(value).toBe(expected));
export const hasValue = (locator: Locator, expected: string) => eventually(() => locator.inputValue({ timeout: WAIT_MS }) as Promise<string>, (value) => expect(value).toBe(expected));
export const count = (locator: Locator, expected: number) => eventually(() => locator.count() as Promise<number>, (n) => expect(n).toBe(expected));
export const focused = (locator: Locator) => eventually(() => locator.evaluate((node: Element) => node === document.activeElement) as Promise<boolean>, (yes) => expect(yes).toBe(true));

/** The row of the client list for a client name. */
export const rowOf = (page: Page, name: string) => page.locator('#client-rows tr[data-client-id]', { has: page.getByRole('rowheader', { name, exact: true }) });

/** The names in the client list, in the order shown. */
export const listedNames = (page: Page) => page.locator('#client-rows tr[data-client-id] th').allInnerTexts() as Promise<string[]>;

/** The newest toast (a change's confirmation). */
export const lastToast = (page: Page) => page.locator('#toasts .toast').last();

// ------------------------------------------------------------------ accessibility scans

/** The rules an axe scan runs: WCAG 2.0, 2.1 and 2.2 A and AA, and axe's best practices. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] as const;

let axeSource: string | undefined;

/**
 * Runs axe-core (the devDependency) on the page as it is and returns its violations, each with
 * the elements it found. The script is evaluated through the DevTools protocol, so the page's
 * CSP (script-src 'self') stays as it is.
 */
export async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string; help: string; nodes: string[] }>> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(`${axeSource}\n;true`);
  return page.evaluate(async (tags: string[]) => {
    const axe = (window as any).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n: any) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
  }, [...AXE_TAGS]);
}
