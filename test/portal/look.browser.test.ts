/**
 * How the portal looks, in Chromium against `npm start`'s gateway (test/support/portal-browser.ts),
 * at 1280×800 and at 390×844 (a phone): screenshots of sign-in, the client list (with 30 clients
 * more than the two `npm start` makes), a client's details, the Add key dialog and a confirmation
 * dialog, written to reports/portal-screenshots/ (git-ignored; the test prints the folder). At
 * both sizes nothing is wider than the window; on the phone the tables are cards. Text colours
 * meet WCAG AA (4.5:1) against what is behind them, and keyboard focus is visible.
 */
import { join } from 'node:path';
import { generateRsaKeyPair, spkiPemOf } from '../../lambda/core/keys';
import {
  type Page,
  type PortalSession,
  browserTest,
  containsText,
  count,
  createClientFor,
  hidden,
  registryCall,
  rowOf,
  screenshotFolder,
  signIn,
  startPortalSession,
  storeAt,
  visible,
} from '../support/portal-browser';

jest.setTimeout(300_000);

let session: PortalSession;
let page: Page;
let folder: string;
let old: { clientId: string; fingerprint: string };

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

beforeAll(async () => {
  session = await startPortalSession('portal-look', { width: 1280, height: 800 });
  page = session.page;
  folder = screenshotFolder();
  console.log(`portal screenshots: ${folder}`);
  // A partner whose first key is 120 days old (flagged) and who has since added a new one.
  const key = generateRsaKeyPair();
  const aged = await storeAt(session.home, 120).createClient(
    { name: 'Acme Payments (production)', networkWhitelist: ['203.0.113.0/24', '2001:db8::/32'], roles: ['demo'], key: { fingerprint: key.fingerprint, spkiPem: spkiPemOf(key.publicKey) } },
    'bootstrap',
  );
  old = { clientId: aged.record.clientId, fingerprint: key.fingerprint };
  const added = await registryCall(session.gateway, session.admin, `/registry/clients/${old.clientId}/keys`, { body: { publicKey: spkiPemOf(generateRsaKeyPair().publicKey) } });
  expect(added.status).toBe(201);
  const names = ['Globex Orders', 'Initech Billing', 'Umbrella Reports', 'Hooli Search', 'Stark Logistics', 'Wayne Payroll', 'Wonka Inventory', 'Tyrell Archive', 'Cyberdyne Telemetry', 'Soylent Supply'];
  for (let i = 0; i < 30; i++) {
    const client = await createClientFor(session.gateway, session.admin, { name: `${names[i % names.length]} ${Math.floor(i / names.length) + 1}` });
    if (i % 7 === 3) await registryCall(session.gateway, session.admin, `/registry/clients/${client.clientId}/disable`, { body: {} });
  }
});

afterAll(async () => {
  await session?.close();
});

/** Nothing is wider than the window (no sideways scrolling), and an open dialog's content fits the dialog. */
async function fitsTheWindow(width: number) {
  const sizes = await page.evaluate(() => {
    const dialog = document.querySelector('dialog[open]');
    return {
      page: document.documentElement.scrollWidth,
      body: document.body.scrollWidth,
      dialog: dialog ? { scroll: dialog.scrollWidth, client: dialog.clientWidth } : undefined,
    };
  });
  expect(sizes.page).toBeLessThanOrEqual(width);
  expect(sizes.body).toBeLessThanOrEqual(width);
  if (sizes.dialog) expect(sizes.dialog.scroll).toBeLessThanOrEqual(sizes.dialog.client);
}

/** A screenshot of the window (the size under test), as someone sees it. */
async function shoot(size: (typeof SIZES)[number], step: string) {
  await page.screenshot({ path: join(folder, `${size.name}-${step}.png`) });
}

for (const size of SIZES) {
  browserTest(`${size.name} (${size.width}×${size.height}): sign-in, the list of 33 clients, details, Add key and a confirmation fit the window; screenshots taken`, async () => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.goto(`${session.gateway.url}/portal/`);
    await visible(page.getByRole('heading', { name: 'Load the admin key' }));
    await fitsTheWindow(size.width);
    await shoot(size, '1-sign-in');

    await signIn(page, session.gateway.url, session.admin.dir);
    await count(page.locator('#client-rows tr[data-client-id]'), 25);
    await visible(page.getByRole('button', { name: 'Load more clients' }));
    await fitsTheWindow(size.width);
    // On a phone the table is cards: each row is a block, each cell a labelled line.
    const display = await rowOf(page, 'Acme Payments (production)').evaluate((row: HTMLElement) => getComputedStyle(row).display);
    expect(display).toBe(size.width < 700 ? 'block' : 'table-row');
    // The phone's window starts with the account and search boxes: show the list itself.
    if (size.width < 700) await page.locator('#list-count').evaluate((line: HTMLElement) => line.scrollIntoView({ block: 'start' }));
    await shoot(size, '2-client-list');

    await rowOf(page, 'Acme Payments (production)').getByRole('button', { name: 'Details' }).click();
    const details = page.locator(`#details-${old.clientId}`);
    await count(details.getByRole('table', { name: 'Keys of Acme Payments (production)' }).locator('tbody tr'), 2);
    await rowOf(page, 'Acme Payments (production)').evaluate((row: HTMLElement) => row.scrollIntoView({ block: 'start' }));
    await fitsTheWindow(size.width);
    await shoot(size, '3-details');

    await page.getByRole('button', { name: 'Add a key to Acme Payments (production)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a key to Acme Payments (production)' });
    const next = generateRsaKeyPair();
    await dialog.getByLabel('New public key').fill(spkiPemOf(next.publicKey));
    await containsText(dialog.locator('#new-key-ok'), next.fingerprint);
    await fitsTheWindow(size.width);
    await shoot(size, '4-add-key');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await hidden(dialog);

    const short = `${old.fingerprint.slice(0, 8)}…${old.fingerprint.slice(-6)}`;
    await details.getByRole('button', { name: `Remove key ${short} of Acme Payments (production)` }).click();
    const confirm = page.getByRole('dialog', { name: `Remove key ${short} from Acme Payments (production)?` });
    await visible(confirm);
    await fitsTheWindow(size.width);
    await shoot(size, '5-confirm-remove-key');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await hidden(confirm);
    await rowOf(page, 'Acme Payments (production)').getByRole('button', { name: 'Details' }).click();
    await page.getByRole('button', { name: 'Sign out and forget the key' }).click();
    expect(session.pageErrors).toEqual([]);
  });
}

browserTest('text colours meet WCAG AA (4.5:1) against the background they sit on, and keyboard focus is visible', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, session.gateway.url, session.admin.dir);
  await rowOf(page, 'Acme Payments (production)').getByRole('button', { name: 'Details' }).click();
  await rowOf(page, 'local demo').getByRole('button', { name: 'Details' }).click();
  await page.getByRole('button', { name: 'Load more clients' }).click();
  await count(page.locator('#client-rows tr[data-client-id]'), 33);
  // A toast, to measure it too (enabling one of the disabled clients; others stay disabled).
  await page.locator('#client-rows .status-toggle', { hasText: 'Enable' }).first().click();
  await visible(page.locator('#toasts .toast'));

  const selectors = [
    'main p',
    '#list-count',
    '.hint',
    '.brand',
    '.signer',
    '.signer .muted',
    'thead th',
    'button.sort',
    '#client-rows th',
    '#client-rows td',
    '.badge.active',
    '.badge.disabled',
    '.badge.you',
    '#client-rows td.due',
    'tr.due td',
    // Disabled controls are exempt (WCAG 1.4.3); the disabled Remove of a last key is still measured: it explains itself.
    'button:not(:disabled)',
    'button.danger-outline:disabled',
    'button.primary',
    'button.danger-outline:not(:disabled)',
    '.last-key',
    '.toast-text',
    'label',
    'code',
  ];
  const ratios = await page.evaluate((list: string[]) => {
    const parse = (colour: string) => {
      const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(colour);
      return m ? { r: Number(m[1]), g: Number(m[2]), b: Number(m[3]), a: m[4] === undefined ? 1 : Number(m[4]) } : { r: 0, g: 0, b: 0, a: 0 };
    };
    const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
      const [R, G, B] = [r, g, b].map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * R + 0.7152 * G + 0.0722 * B;
    };
    /** The first opaque background behind the element (the page's own, at worst). */
    const background = (node: Element | null) => {
      for (let n = node; n; n = n.parentElement) {
        const bg = parse(getComputedStyle(n).backgroundColor);
        if (bg.a >= 0.99) return bg;
      }
      return parse(getComputedStyle(document.documentElement).backgroundColor);
    };
    const out: Record<string, number> = {};
    for (const selector of list) {
      const nodes = Array.from(document.querySelectorAll(selector)).filter((n) => (n as HTMLElement).offsetParent !== null && (n.textContent ?? '').trim() !== '');
      if (nodes.length === 0) {
        out[selector] = -1;
        continue;
      }
      let worst = Infinity;
      for (const node of nodes.slice(0, 40)) {
        const style = getComputedStyle(node);
        const fg = parse(style.color);
        const bg = background(node);
        // Text with opacity (disabled controls excepted above) blends into its background.
        const opacity = Number(style.opacity);
        const blended = { r: fg.r * opacity + bg.r * (1 - opacity), g: fg.g * opacity + bg.g * (1 - opacity), b: fg.b * opacity + bg.b * (1 - opacity) };
        const [l1, l2] = [luminance(blended), luminance(bg)].sort((a, b) => b - a);
        worst = Math.min(worst, (l1 + 0.05) / (l2 + 0.05));
      }
      out[selector] = Math.round(worst * 100) / 100;
    }
    return out;
  }, selectors);
  console.log(`contrast (worst per selector): ${JSON.stringify(ratios)}`);
  for (const selector of selectors) {
    expect([selector, ratios[selector]]).toEqual([selector, expect.any(Number)]);
    if (ratios[selector] === -1) throw new Error(`nothing visible matches ${selector}: the contrast check would not measure it`);
    expect([selector, ratios[selector] >= 4.5]).toEqual([selector, true]);
  }

  // Keyboard focus: a visible 3px outline on whatever Tab reaches.
  await page.getByRole('button', { name: 'Refresh', exact: true }).focus();
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => {
    const style = getComputedStyle(document.activeElement as Element);
    return { style: style.outlineStyle, width: style.outlineWidth, matches: (document.activeElement as Element).matches(':focus-visible') };
  });
  expect(outline).toEqual({ style: 'solid', width: '3px', matches: true });
});
