/**
 * How the portal looks, in Chromium against `npm start`'s gateway (test/support/portal-browser.ts),
 * at 1280×800 and at 390×844 (a phone): screenshots of sign-in, the client list (with 30 clients
 * more than the two `npm start` makes), a client's details, the Add key dialog and a confirmation
 * dialog, written to reports/portal-screenshots/ (git-ignored; the test prints the folder). At
 * both sizes nothing is wider than the window; on the phone the tables are cards. Text colours
 * meet WCAG AA (4.5:1) against what is behind them, and keyboard focus is visible.
 *
 * At both sizes axe-core (WCAG 2.2 AA and best practice) finds nothing on seven screens: sign-in,
 * the list, a client's details (its keys, failures and changes), the account's changes, + Client
 * after a refused submit (whose first refused field is scrolled into view with its label, under
 * the dialog's title), Add key, and a confirmation. The focus ring is measured against every
 * background Tab takes it over (3:1 at least).
 */
import { join } from 'node:path';
import { spkiPemOf } from '../../lambda/core/keys';
import {
  type Page,
  type PortalSession,
  axeViolations,
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
  eventually,
  storeAt,
  visible,
} from '../support/portal-browser';
import { nextTestKey } from '../support/test-keys';

/** Colour arithmetic the contrast checks run in the page (WCAG 2.x relative luminance). */
interface SignetColour {
  parse(colour: string): { r: number; g: number; b: number; a: number };
  luminance(rgb: { r: number; g: number; b: number }): number;
}

/** Installs {@link SignetColour} as `window.signetColour` in the page (page.evaluate runs the text there). */
const INSTALL_COLOUR_HELPERS = String.raw`window.signetColour = {
  parse(colour) {
    const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(colour);
    return m ? { r: Number(m[1]), g: Number(m[2]), b: Number(m[3]), a: m[4] === undefined ? 1 : Number(m[4]) } : { r: 0, g: 0, b: 0, a: 0 };
  },
  luminance({ r, g, b }) {
    const [R, G, B] = [r, g, b].map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * R + 0.7152 * G + 0.0722 * B;
  },
};
true`;

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
  const key = nextTestKey();
  const aged = await storeAt(session.home, 120).createClient(
    { name: 'Acme Payments (production)', networkWhitelist: ['203.0.113.0/24', '2001:db8::/32'], roles: ['demo'], key: { fingerprint: key.fingerprint, spkiPem: spkiPemOf(key.publicKey) } },
    'bootstrap',
  );
  old = { clientId: aged.record.clientId, fingerprint: key.fingerprint };
  const added = await registryCall(session.gateway, session.admin, `/registry/clients/${old.clientId}/keys`, { body: { publicKey: spkiPemOf(nextTestKey().publicKey) } });
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

/**
 * The focused element is `focusedSelector`, and it, its label (`labelSelector`) and the open
 * dialog's title are all inside the dialog's visible area, the label below the title.
 */
async function inView(focusedSelector: string, labelSelector: string) {
  await eventually(
    () =>
      page.evaluate(([f, l]: [string, string]) => {
        const dialog = document.querySelector('dialog[open]') as HTMLElement;
        const box = (node: Element | null) => {
          const r = (node as Element).getBoundingClientRect();
          return { top: r.top, bottom: r.bottom };
        };
        const view = box(dialog);
        const title = box(dialog.querySelector('h2'));
        const label = box(document.querySelector(l));
        return {
          focused: (document.activeElement as Element).matches(f),
          titleShown: title.top >= view.top - 1 && title.bottom <= view.bottom,
          labelBelowTitle: label.top >= title.bottom - 1 && label.bottom <= view.bottom,
          fieldShown: box(document.activeElement).bottom <= view.bottom + 1,
        };
      }, [focusedSelector, labelSelector]) as Promise<Record<string, boolean>>,
    (where) => expect(where).toEqual({ focused: true, titleShown: true, labelBelowTitle: true, fieldShown: true }),
  );
}

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

/** axe-core finds nothing on the screen as it is now. */
async function accessible(screen: string) {
  const violations = await axeViolations(page);
  expect([screen, violations]).toEqual([screen, []]);
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
    await accessible(`${size.name} sign-in`);

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
    await accessible(`${size.name} client list`);

    // + Client, submitted empty: refused in the form's words; the first refused field is focused
    // and scrolled to with its label, under the dialog's title.
    await page.getByRole('button', { name: '+ Client' }).click();
    const add = page.getByRole('dialog', { name: 'Add client' });
    await visible(add);
    await add.getByRole('group', { name: 'Assign roles' }).getByRole('checkbox').evaluateAll((boxes: HTMLInputElement[]) => boxes.forEach((b) => (b.checked = false)));
    await add.locator('#dialog-submit').focus();
    await page.keyboard.press('Enter');
    await visible(add.locator('#client-name-error'));
    await inView('#client-name', 'label[for="client-name"]');
    await fitsTheWindow(size.width);
    await shoot(size, '6-add-client-refused');
    await accessible(`${size.name} + Client refused`);
    // The name given: the next refused field (the whitelist, far down on a phone) is scrolled to.
    await add.getByLabel('Name').fill('Scroll Test');
    await add.locator('#dialog-submit').focus();
    await page.keyboard.press('Enter');
    await inView('#whitelist-entry', '#client-dialog fieldset legend');
    await add.getByLabel('Address or CIDR range').fill('203.0.113.7');
    await page.keyboard.press('Enter');
    await add.getByLabel('Public Key').fill(spkiPemOf(nextTestKey().publicKey));
    await add.locator('#dialog-submit').focus();
    await page.keyboard.press('Enter');
    await inView('#role-options input', '#roles-field legend');
    await add.getByRole('button', { name: 'Cancel' }).click();
    await hidden(add);

    await page.getByRole('button', { name: 'Account changes' }).click();
    await visible(page.locator('#account-audit .audit-trail'));
    await hidden(page.locator('#account-audit').getByText('Loading changes…'));
    await accessible(`${size.name} account changes`);
    await page.getByRole('button', { name: 'Account changes' }).click();

    await rowOf(page, 'Acme Payments (production)').getByRole('button', { name: 'Details' }).click();
    const details = page.locator(`#details-${old.clientId}`);
    await count(details.getByRole('table', { name: 'Keys of Acme Payments (production)' }).locator('tbody tr'), 2);
    await rowOf(page, 'Acme Payments (production)').evaluate((row: HTMLElement) => row.scrollIntoView({ block: 'start' }));
    await visible(details.getByRole('table', { name: 'Changes to Acme Payments (production), newest first' }));
    await fitsTheWindow(size.width);
    await shoot(size, '3-details');
    await accessible(`${size.name} details`);

    await page.getByRole('button', { name: 'Add key to Acme Payments (production)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a key to Acme Payments (production)' });
    const next = nextTestKey();
    await dialog.getByLabel('New public key').fill(spkiPemOf(next.publicKey));
    await containsText(dialog.locator('#new-key-ok'), next.fingerprint);
    await fitsTheWindow(size.width);
    await shoot(size, '4-add-key');
    await accessible(`${size.name} Add key`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await hidden(dialog);

    const short = `${old.fingerprint.slice(0, 8)}…${old.fingerprint.slice(-6)}`;
    await details.getByRole('button', { name: `Remove key ${short} of Acme Payments (production)` }).click();
    const confirm = page.getByRole('dialog', { name: `Remove key ${short} from Acme Payments (production)?` });
    await visible(confirm);
    await fitsTheWindow(size.width);
    await shoot(size, '5-confirm-remove-key');
    await accessible(`${size.name} confirmation`);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await hidden(confirm);
    await rowOf(page, 'Acme Payments (production)').getByRole('button', { name: 'Details' }).click();
    await page.getByRole('button', { name: 'Sign out and forget the key' }).click();
    await visible(page.getByRole('heading', { name: 'Load the admin key' }));
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
  await page.evaluate(INSTALL_COLOUR_HELPERS);
  const ratios = await page.evaluate((list: string[]) => {
    const { parse, luminance } = (window as unknown as { signetColour: SignetColour }).signetColour;
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

  // Keyboard focus: a visible 3px outline on whatever Tab reaches, 3:1 or more against the
  // background it is drawn over (outside the element: its parent's), on the page and in a dialog.
  const ring = async (steps: number) => {
    const seen: Array<{ what: string; style: string; width: string; visible: boolean; ratio: number }> = [];
    for (let i = 0; i < steps; i++) {
      await page.keyboard.press('Tab');
      seen.push(
        await page.evaluate(() => {
          const { parse, luminance } = (window as unknown as { signetColour: SignetColour }).signetColour;
          const node = document.activeElement as HTMLElement;
          let bg = parse(getComputedStyle(document.documentElement).backgroundColor);
          for (let n = node.parentElement; n; n = n.parentElement) {
            const c = parse(getComputedStyle(n).backgroundColor);
            if (c.a >= 0.99) {
              bg = c;
              break;
            }
          }
          const style = getComputedStyle(node);
          const [l1, l2] = [luminance(parse(style.outlineColor)), luminance(bg)].sort((a, b) => b - a);
          return {
            what: `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''} ${(node.getAttribute('aria-label') ?? node.textContent ?? '').trim().slice(0, 30)}`,
            style: style.outlineStyle,
            width: style.outlineWidth,
            visible: node.matches(':focus-visible'),
            ratio: Math.round(((l1 + 0.05) / (l2 + 0.05)) * 100) / 100,
          };
        }),
      );
    }
    return seen;
  };
  await page.evaluate(INSTALL_COLOUR_HELPERS);
  await page.locator('#main').focus();
  await page.evaluate(() => window.scrollTo(0, 0));
  const onPage = await ring(40);
  await page.getByRole('button', { name: 'Add key to Acme Payments (production)' }).click();
  const onDialog = await ring(8);
  await page.keyboard.press('Escape');
  const all = [...onPage, ...onDialog];
  console.log(`focus ring contrast: worst ${Math.min(...all.map((f) => f.ratio))}:1 over ${all.length} stops (${[...new Set(all.map((f) => f.ratio))].sort().join(', ')})`);
  // The ring passes over the table's header row (the sort buttons) too.
  expect(all.some((f) => f.what.startsWith('button Name'))).toBe(true);
  for (const stop of all) expect([stop.what, stop.style, stop.width, stop.visible, stop.ratio >= 3]).toEqual([stop.what, 'solid', '3px', true, true]);
});
