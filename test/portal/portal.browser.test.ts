/**
 * The client portal in a real browser: Debian's Chromium (/usr/bin/chromium) driven by
 * playwright-core, against `npm start`'s gateway (local/main.ts in a child process, a temporary
 * SIGNET_HOME, a free port). The admin key is loaded from its file through the file input; a
 * client is added through "+ Client", seen in the list, its clientId copied with the copy icon,
 * a private key pasted as its public key is refused on the spot (nothing sent), its key is then
 * replaced; its keys and recent authentication failures are shown, it is disabled and enabled.
 * Every effect is checked through the registry API from Node as well. Screenshots are kept in
 * reports/ (a CI artifact): portal.png (the private-key refusal) and portal-clients.png.
 *
 * Without Chromium or playwright-core this test fails and says what to install; it never passes
 * without a browser.
 */
/**
 * The client portal in a real browser: Debian's Chromium driven by playwright-core, against `npm
 * start`'s gateway (test/support/portal-browser.ts). The admin key is loaded from its file through
 * the file input; a client is added through "+ Client", seen in the list, its clientId copied with
 * the copy icon; in its details a private key pasted as a new key is refused on the spot (nothing
 * sent), a new key is added next to the old one (both shown), and the old one removed after a
 * confirmation naming it; its recent authentication failures are shown, it is disabled and
 * enabled. Every effect is checked through the registry API from Node as well, and every change
 * ends with a toast. Screenshot: reports/portal-screenshots/private-key-refused.png.
 */
import { join } from 'node:path';
import { type PrivateKeyInfo, spkiPemOf } from '../../lambda/core/keys';
import { writeClientDir } from '../../local/client-dir';
import { sendSigned } from '../local/gateway-process';
import {
  type Page,
  type PortalSession,
  browserTest,
  containsText,
  count,
  createClientFor,
  eventually,
  focused,
  hasAttribute,
  hasText,
  hasValue,
  hidden,
  lastToast,
  registryCall,
  rowOf as rowIn,
  screenshotFolder,
  startPortalSession,
  texts,
  visible,
} from '../support/portal-browser';
import { nextTestKey } from '../support/test-keys';

jest.setTimeout(240_000);

type Request = any;

let session: PortalSession;
let page: Page;
const requests: Request[] = [];

/** The partner key registered through the portal, then the one that replaces it. */
let firstKey: PrivateKeyInfo;
let secondKey: PrivateKeyInfo;
let acmeId: string;

const registry = (path: string, send: { method?: string; body?: unknown } = {}) => registryCall(session.gateway, session.admin, path, send);

async function clientNamed(name: string): Promise<Record<string, any>> {
  const list = await registry('/registry/clients?limit=100');
  const found = (list.body.clients as Array<Record<string, any>>).find((c) => c.name === name);
  if (found === undefined) throw new Error(`no client named ${name}`);
  return found;
}

beforeAll(async () => {
  session = await startPortalSession('portal', { width: 1280, height: 1100 });
  page = session.page;
  firstKey = nextTestKey();
  secondKey = nextTestKey();
  await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.gateway.url });
  page.on('request', (request: Request) => requests.push(request));
});

afterAll(async () => {
  await session?.close();
});

const rowOf = (name: string) => rowIn(page, name);

/**
 * Tab, then Shift+Tab, once round the open dialog and one step more: every stop is a control of
 * the dialog (never the dialog itself, never the page behind), each once, and the step after
 * the last is the first again.
 */
async function tabsGoRound(dialog: any) {
  const stops: number = await dialog.evaluate(
    (d: HTMLElement) =>
      Array.from(d.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')).filter(
        (n) =>
          n.tabIndex >= 0 &&
          !(n as HTMLButtonElement).disabled &&
          n.getClientRects().length > 0 &&
          // A group of radio buttons is one stop: Tab goes to its checked one, the arrows move within it.
          !((n as HTMLInputElement).type === 'radio' && !(n as HTMLInputElement).checked),
      ).length,
  );
  expect(stops).toBeGreaterThan(1);
  for (const key of ['Tab', 'Shift+Tab']) {
    const seen: string[] = [];
    for (let i = 0; i <= stops; i++) {
      await page.keyboard.press(key);
      seen.push(
        await page.evaluate(() => {
          const active = document.activeElement as HTMLElement;
          const dialogs = Array.from(document.querySelectorAll('dialog[open]'));
          const top = dialogs[dialogs.length - 1];
          if (active === top) return 'the dialog itself';
          if (!top?.contains(active)) return `outside the dialog: ${active.tagName}`;
          return `${Array.from(top.querySelectorAll('*')).indexOf(active)} ${active.tagName} ${(active.getAttribute('aria-label') ?? active.textContent ?? '').trim().slice(0, 24)}`;
        }),
      );
    }
    expect([key, seen.filter((stop) => stop === 'the dialog itself' || stop.startsWith('outside'))]).toEqual([key, []]);
    expect([key, new Set(seen.slice(0, stops)).size]).toEqual([key, stops]);
    expect([key, seen[stops]]).toEqual([key, seen[0]]);
  }
}

browserTest('the portal is served at /portal with a strict CSP, and loads the admin key from its file', async () => {
  const response = await page.goto(`${session.gateway.url}/portal`);
  expect(page.url()).toBe(`${session.gateway.url}/portal/index.html`);
  expect(response.status()).toBe(200);
  expect(response.headers()['content-security-policy']).toContain("script-src 'self'");

  await page.getByLabel('Admin private key file').setInputFiles([join(session.home, 'admin', 'private.pkcs8.b64'), join(session.home, 'admin', 'client-id')]);
  // The client ID is filled in as soon as the client-id file is chosen, before anything is submitted.
  await eventually(() => page.getByLabel('Admin client ID').inputValue() as Promise<string>, (value) => expect(value).toBe(session.admin.clientId));
  await page.getByRole('button', { name: 'Use this key' }).click();
  await hasText(page.locator('#signer-id'), session.admin.clientId);
  expect(await page.locator('#signer-fingerprint').getAttribute('title')).toBe(session.admin.fingerprint);

  const listed = await registry('/registry/clients?limit=100');
  await count(page.locator('#client-rows tr[data-client-id]'), listed.body.clients.length);
  for (const client of listed.body.clients) await visible(page.locator(`#client-rows tr[data-client-id="${client.clientId}"]`));
  // The signer's own client is marked "you", once, and cannot be disabled from the page; others can.
  // Its Disable stays a Tab stop (aria-disabled), with the reason shown beside it and read with it.
  const own = page.locator(`#client-rows tr[data-client-id="${session.admin.clientId}"]`);
  await hasText(own.locator('.badge.you'), 'you');
  await count(page.locator('#client-rows .badge.you'), 1);
  const ownDisable = own.getByRole('button', { name: /^Disable / });
  expect(await ownDisable.getAttribute('aria-disabled')).toBe('true');
  const reason = own.locator('.self-note');
  await visible(reason);
  await hasText(reason, 'You are signed in as this client: disabling it would lock you out. Another operator can.');
  expect(await ownDisable.getAttribute('aria-describedby')).toBe(await reason.getAttribute('id'));
  await own.getByRole('button', { name: 'Details' }).focus();
  await page.keyboard.press('Tab');
  await focused(ownDisable);
  await page.keyboard.press('Enter');
  expect(await page.locator('#confirm-dialog').isVisible()).toBe(false);
  await focused(ownDisable);
  const other = (listed.body.clients as { clientId: string; status: string }[]).find((c) => c.clientId !== session.admin.clientId && c.status === 'active')!;
  const otherDisable = page.locator(`#client-rows tr[data-client-id="${other.clientId}"]`).getByRole('button', { name: /^Disable / });
  expect([await otherDisable.isDisabled(), await otherDisable.getAttribute('aria-disabled')]).toEqual([false, null]);
  // The file input no longer holds the key file.
  expect(await page.getByLabel('Admin private key file').evaluate((input: HTMLInputElement) => input.files?.length ?? 0)).toBe(0);
});

browserTest('+ Client opens from the keyboard and Escape closes it, focus back on the button', async () => {
  await page.getByRole('button', { name: '+ Client' }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Add client' });
  await visible(dialog);
  await focused(dialog.getByLabel('Name'));
  await page.keyboard.press('Escape');
  await hidden(dialog);
  await focused(page.getByRole('button', { name: '+ Client' }));
});

browserTest('an empty + Client form is refused in the form\'s words before anything is sent; every role checkbox is marked invalid; Tab stays in the dialog', async () => {
  const writesBefore = requests.filter((r: Request) => r.method() !== 'GET').length;
  await page.getByRole('button', { name: '+ Client' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add client' });
  await visible(dialog);
  const roleBoxes = dialog.getByRole('group', { name: 'Assign roles' }).getByRole('checkbox');
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await hasText(dialog.locator('#client-name-error'), 'Enter a name.');
  await hasText(dialog.locator('#whitelist-error'), 'Add at least one address, or 0.0.0.0 for everyone.');
  await hasText(dialog.locator('#client-key-error'), "Paste the partner's public key (public.pem), or generate a key pair below.");
  await hasText(dialog.locator('#roles-error'), 'Choose at least one role.');
  // The registry's stable codes stay with the fields.
  const codes = await dialog.locator('.error:not([hidden])').evaluateAll((boxes: HTMLElement[]) => boxes.map((b) => b.dataset.code));
  expect(codes).toEqual(['invalid_request', 'invalid_network', 'invalid_public_key', 'unknown_role']);
  const invalid = () => roleBoxes.evaluateAll((boxes: HTMLInputElement[]) => boxes.map((b) => b.getAttribute('aria-invalid'))) as Promise<Array<string | null>>;
  const boxes = (await invalid()).length;
  expect(boxes).toBeGreaterThan(1);
  expect(await invalid()).toEqual(Array(boxes).fill('true'));
  await focused(dialog.getByLabel('Name'));
  expect(requests.filter((r: Request) => r.method() !== 'GET').length).toBe(writesBefore);
  await tabsGoRound(dialog);
  await roleBoxes.first().check();
  expect(await invalid()).toEqual(Array(boxes).fill(null));
  await hidden(dialog.locator('#roles-error'));
  await page.keyboard.press('Escape');
  await hidden(dialog);
});

browserTest('adds a client: whitelist entered one address at a time (a bad IP refused inline), public key, roles, then Add; it is in the list', async () => {
  await page.getByRole('button', { name: '+ Client' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add client' });
  await dialog.getByLabel('Name').fill('Acme Payments');

  const entry = dialog.getByLabel('Address or CIDR range');
  await entry.fill('300.1.1.1');
  await entry.press('Enter');
  await hasText(dialog.locator('#whitelist-error'), /"300\.1\.1\.1" is not an IPv4 or IPv6 address or CIDR range/);
  await hasAttribute(entry, 'aria-invalid', 'true');
  await entry.fill('203.0.113.7');
  await entry.press('Enter');
  await entry.fill('2001:DB8::/32');
  await dialog.getByRole('button', { name: 'Add to list' }).click();
  await hidden(dialog.locator('#whitelist-error'));
  await texts(dialog.getByRole('list', { name: 'Whitelisted addresses' }).locator('li > span'), ['203.0.113.7', '2001:db8::/32']);
  await hidden(dialog.locator('#whitelist-open'));
  // Every IPv4 address, written the IPv6 way: the page says so (every IPv4 address, not every address), then it is removed.
  await entry.fill('::ffff:0:0/96');
  await entry.press('Enter');
  await hasText(dialog.locator('#whitelist-open'), '::ffff:0:0/96 lets every IPv4 address in: only the signature protects this client from IPv4 callers.');
  await dialog.getByRole('button', { name: 'Remove ::ffff:0:0/96' }).click();
  await hidden(dialog.locator('#whitelist-open'));
  // Two halves of IPv4 are every IPv4 address, only together.
  await entry.fill('0.0.0.0/1');
  await entry.press('Enter');
  await hidden(dialog.locator('#whitelist-open'));
  await entry.fill('128.0.0.0/1');
  await entry.press('Enter');
  await hasText(dialog.locator('#whitelist-open'), 'Together these entries let every IPv4 address in: only the signature protects this client from IPv4 callers.');
  await dialog.getByRole('button', { name: 'Remove 0.0.0.0/1' }).click();
  await hidden(dialog.locator('#whitelist-open'));
  await dialog.getByRole('button', { name: 'Remove 128.0.0.0/1' }).click();

  await dialog.getByLabel('Public Key').fill(spkiPemOf(firstKey.publicKey));
  await hasText(dialog.locator('#client-key-ok'), `RSA-2048 public key (rsa-v1_5-sha256), fingerprint ${firstKey.fingerprint}`);
  await dialog.getByRole('group', { name: 'Assign roles' }).getByLabel('demo', { exact: true }).check();
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await hidden(dialog);

  await visible(rowOf('Acme Payments'));
  const record = await clientNamed('Acme Payments');
  acmeId = record.clientId;
  expect(record).toMatchObject({ networkWhitelist: ['203.0.113.7', '2001:db8::/32'], roles: ['demo'], status: 'active', keys: [{ fingerprint: firstKey.fingerprint }] });
  await hasText(rowOf('Acme Payments').locator('code.client-id'), acmeId);
  await hasText(lastToast(page).locator('.toast-text'), `Acme Payments added with clientId ${acmeId}. It applies to the next request.`);
});

browserTest('the copy icon copies the clientId', async () => {
  const copy = page.getByRole('button', { name: 'Copy the clientId of Acme Payments' });
  await copy.click();
  await hasAttribute(copy, 'data-copied', acmeId);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(acmeId);
  await hasText(page.locator('#announcer'), `Copied ${acmeId}`);
});

browserTest('edit: the form changes name, whitelist and roles only; keys are managed in the details', async () => {
  await page.getByRole('button', { name: 'Edit Acme Payments' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Acme Payments' });
  await visible(dialog);
  await hasValue(dialog.getByLabel('Name'), 'Acme Payments');
  await hidden(dialog.getByLabel('Public Key'));
  await containsText(dialog.locator('#edit-keys-note'), 'Acme Payments has 1 key. Keys are added and removed in its details');
  await dialog.getByRole('button', { name: 'Update' }).click();
  await hasText(dialog.locator('#form-error'), 'Nothing to change: edit the name, the whitelist, the roles or where the keys come from.');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await hidden(dialog);
  await focused(page.getByRole('button', { name: 'Edit Acme Payments' }));
});

browserTest('key rollover: a private key pasted as the new key is refused on the spot and never sent; the new key is added next to the old one, both shown; the old one is removed after a confirmation naming it', async () => {
  await rowOf('Acme Payments').getByRole('button', { name: 'Details' }).click();
  const details = page.locator(`#details-${acmeId}`);
  const keys = details.getByRole('table', { name: 'Keys of Acme Payments' });
  await count(keys.locator('tbody tr'), 1);
  await page.getByRole('button', { name: 'Add key to Acme Payments' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a key to Acme Payments' });
  await visible(dialog);
  await containsText(dialog, 'The new key verifies as soon as it is added, next to the current key: nothing stops working.');
  const sentBefore = requests.length;

  const privatePem = secondKey.key.export({ type: 'pkcs8', format: 'pem' }) as string;
  const keyBox = dialog.getByLabel('New public key');
  await focused(keyBox);
  await keyBox.fill(privatePem);
  const refusal = dialog.locator('#new-key-error');
  await hasText(refusal,
    'This is a private key. Paste only the public half (-----BEGIN PUBLIC KEY-----), and treat this private key as exposed: generate a new key pair.',
  );
  await hasAttribute(refusal, 'data-code', 'private_key_submitted');
  await hasAttribute(keyBox, 'aria-invalid', 'true');
  await dialog.getByRole('button', { name: 'Add key' }).click();
  await visible(dialog);
  await focused(keyBox);
  await page.screenshot({ path: join(screenshotFolder(), 'private-key-refused.png'), fullPage: true });
  expect(requests.slice(sentBefore).filter((r: Request) => r.url().includes('/registry/'))).toEqual([]);

  // The key the client already has is not a new key: said before anything is sent.
  await keyBox.fill(spkiPemOf(firstKey.publicKey));
  await dialog.getByRole('button', { name: 'Add key' }).click();
  await hasAttribute(refusal, 'data-code', 'key_already_registered');
  expect(requests.slice(sentBefore).filter((r: Request) => r.url().includes('/registry/'))).toEqual([]);

  await keyBox.fill(spkiPemOf(secondKey.publicKey));
  await hidden(refusal);
  await containsText(dialog.locator('#new-key-ok'), secondKey.fingerprint);
  await dialog.getByRole('button', { name: 'Add key' }).click();
  await hidden(dialog);
  await containsText(lastToast(page), 'added to Acme Payments: 2 keys verify now.');
  // Both keys, each with its fingerprint, type, age and state; both verify.
  await count(keys.locator('tbody tr'), 2);
  for (const key of [firstKey, secondKey]) {
    const line = keys.locator(`tbody tr[data-fingerprint="${key.fingerprint}"]`);
    await containsText(line, key.fingerprint);
    await containsText(line, 'rsa-v1_5-sha256'); // the key's algorithm (KeyView.algorithm)
    await containsText(line, 'today');
    await containsText(line, 'active');
  }
  const both = await clientNamed('Acme Payments');
  expect(both.keys.map((k: { fingerprint: string }) => k.fingerprint)).toEqual([firstKey.fingerprint, secondKey.fingerprint]);
  for (const key of [firstKey, secondKey]) {
    expect((await sendSigned({ clientId: acmeId, privateKey: key.key }, `${session.gateway.url}/api/echo`)).code).toBe('ip_not_allowed'); // the signature was accepted; the address was not
  }

  // Removing the old key asks first, naming it and what stops working; Cancel changes nothing.
  const short = `${firstKey.fingerprint.slice(0, 8)}…${firstKey.fingerprint.slice(-6)}`;
  const remove = page.getByRole('button', { name: `Remove key ${short} of Acme Payments` });
  const writesBefore = requests.filter((r: Request) => r.method() !== 'GET').length;
  await remove.click();
  const confirm = page.getByRole('dialog', { name: `Remove key ${short} from Acme Payments?` });
  await visible(confirm);
  await containsText(confirm, `Requests signed with the key ${firstKey.fingerprint} (added `);
  await containsText(confirm, 'will be refused (signature_mismatch) from the next request. Acme Payments keeps its other key');
  await focused(confirm.getByRole('button', { name: 'Cancel' }));
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await hidden(confirm);
  expect(requests.filter((r: Request) => r.method() !== 'GET').length).toBe(writesBefore);
  await remove.click();
  await confirm.getByRole('button', { name: 'Remove key' }).click();
  await hidden(confirm);
  await containsText(lastToast(page), `Key ${short} removed from Acme Payments: requests signed with it are refused from the next request. 1 key remains.`);
  await count(keys.locator('tbody tr'), 1);
  await containsText(keys.locator('tbody tr'), secondKey.fingerprint);
  const record = await clientNamed('Acme Payments');
  expect(record.keys.map((k: { fingerprint: string }) => k.fingerprint)).toEqual([secondKey.fingerprint]);
  expect(record.version).toBe(3);
  // The one key left is the last: its Remove button is disabled, and the panel says why.
  expect(await keys.getByRole('button', { name: /^Remove key / }).isDisabled()).toBe(true);
  await visible(details.locator('.last-key'));
  await rowOf('Acme Payments').getByRole('button', { name: 'Details' }).click();
  await hidden(details);
});

browserTest('details: keys with fingerprint and age, the recent authentication failures with their reasons, and the unsigned refusals as counts', async () => {
  // The partner still signing with the replaced key, and with a stale created: refused, and
  // counted (no key of the client signed them, so anyone could have sent them).
  const stale = await sendSigned({ clientId: acmeId, privateKey: firstKey.key }, `${session.gateway.url}/api/echo`);
  expect(stale.code).toBe('signature_mismatch');
  const old = await sendSigned({ clientId: acmeId, privateKey: secondKey.key }, `${session.gateway.url}/api/echo`, { created: Math.floor(Date.now() / 1000) - 3_600 });
  expect(old.code).toBe('expired');
  // Signed with its current key from outside its whitelist: the client's own request, an entry.
  const outside = await sendSigned({ clientId: acmeId, privateKey: secondKey.key }, `${session.gateway.url}/api/echo`);
  expect(outside.code).toBe('ip_not_allowed');

  const toggle = rowOf('Acme Payments').getByRole('button', { name: 'Details' });
  await toggle.click();
  await hasAttribute(page.getByRole('button', { name: 'Details' }).and(page.locator(`[aria-controls="details-${acmeId}"]`)), 'aria-expanded', 'true');
  const details = page.locator(`#details-${acmeId}`);
  const keys = details.getByRole('table', { name: 'Keys of Acme Payments' });
  await count(keys.getByRole('row'), 2);
  await containsText(keys.getByRole('row').nth(1), secondKey.fingerprint);
  await containsText(keys.getByRole('row').nth(1), 'today');
  const failures = details.getByRole('table', { name: 'Recent authentication failures of Acme Payments' });
  // Each of its refusals as an entry (the rollover's own ip_not_allowed ones too, when more than
  // the record interval apart): only ip_not_allowed, which only its own keys could cause.
  await eventually(() => failures.locator('code.reason').allInnerTexts() as Promise<string[]>, (reasons) => expect(new Set(reasons.map((r) => r.trim()))).toEqual(new Set(['ip_not_allowed'])));
  await containsText(failures, 'GET /api/echo');
  const counts = details.getByRole('table', { name: 'Unsigned refusals naming Acme Payments, per hour' });
  await texts(counts.locator('code.reason'), ['expired', 'signature_mismatch']);

  // Its changes, newest first, as GET /registry/clients/{id}/audit lists them, in words.
  const changes = details.getByRole('table', { name: 'Changes to Acme Payments, newest first' });
  const audit = (await registry(`/registry/clients/${acmeId}/audit?limit=10`)).body.entries as Array<{ at: string; action: string }>;
  expect(audit.map((e) => e.action).slice(0, 2)).toEqual(['key.removed', 'key.added']);
  expect(audit[audit.length - 1].action).toBe('client.created');
  await count(changes.locator('tbody tr'), audit.length);
  expect(await changes.locator('tbody tr').evaluateAll((rows: HTMLElement[]) => rows.map((r) => r.dataset.action))).toEqual(audit.map((e) => e.action));
  expect(await changes.locator('tbody td:first-child').allInnerTexts()).toEqual(audit.map((e) => e.at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')));
  const what = await changes.locator('tbody td:last-child').allInnerTexts();
  const shortOf = (key: PrivateKeyInfo) => `${key.fingerprint.slice(0, 8)}…${key.fingerprint.slice(-6)}`;
  expect(what[0]).toBe(`Key ${shortOf(firstKey)} removed`);
  expect(what[1]).toBe(`Key ${shortOf(secondKey)} added`);
  expect(what[what.length - 1]).toBe('Client created');
  expect(new Set(await changes.locator('tbody td:nth-child(2)').allInnerTexts())).toEqual(new Set([`you (${session.admin.clientId})`]));
  await hidden(details.getByRole('button', { name: 'Load more changes' }));
});

browserTest('disable asks first, naming what will happen (Cancel changes nothing); enable does not; the authorizer follows', async () => {
  const disable = page.getByRole('button', { name: 'Disable Acme Payments' });
  const confirm = page.getByRole('dialog', { name: 'Disable Acme Payments?' });
  const writesBefore = requests.filter((r: Request) => r.method() !== 'GET').length;
  await disable.click();
  await visible(confirm);
  await containsText(confirm, "Requests signed by Acme Payments's keys will be refused (client_disabled)");
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await hidden(confirm);
  await focused(disable);
  expect(requests.filter((r: Request) => r.method() !== 'GET').length).toBe(writesBefore);
  expect((await clientNamed('Acme Payments')).status).toBe('active');

  await disable.click();
  await confirm.getByRole('button', { name: 'Disable' }).click();
  await hasText(rowOf('Acme Payments').locator('.badge'), 'disabled');
  expect((await clientNamed('Acme Payments')).status).toBe('disabled');
  // The local gateway applies a registry write to the next request, and the page says so.
  await hasText(lastToast(page).locator('.toast-text'), 'Acme Payments is now disabled. It applies to the next request.');
  await page.getByRole('button', { name: 'Enable Acme Payments' }).click();
  await hasText(rowOf('Acme Payments').locator('.badge'), 'active');
  expect((await clientNamed('Acme Payments')).status).toBe('active');
});

browserTest('keyboard: in every dialog (Add key, a confirmation, + Account) Tab and Shift+Tab go round its own controls', async () => {
  const toggle = rowOf('Acme Payments').getByRole('button', { name: 'Details' });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.getByRole('button', { name: 'Add key to Acme Payments' }).click();
  const addKey = page.getByRole('dialog', { name: 'Add a key to Acme Payments' });
  await visible(addKey);
  await tabsGoRound(addKey);
  await page.keyboard.press('Escape');
  await hidden(addKey);
  await toggle.click();

  await page.getByRole('button', { name: 'Disable Acme Payments' }).click();
  const confirm = page.getByRole('dialog', { name: 'Disable Acme Payments?' });
  await visible(confirm);
  await tabsGoRound(confirm);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await hidden(confirm);

  await page.getByRole('button', { name: '+ Account' }).click();
  const account = page.getByRole('dialog', { name: 'New account' });
  await visible(account);
  await tabsGoRound(account);
  await page.keyboard.press('Escape');
  await hidden(account);
});

browserTest('edit: adding a role goes straight through; removing one asks first, naming the role and what it stops', async () => {
  const roles = (name: string) => page.getByRole('dialog', { name: 'Edit Acme Payments' }).getByRole('group', { name: 'Assign roles' }).getByLabel(name, { exact: true });
  const edit = page.getByRole('button', { name: 'Edit Acme Payments' });
  await edit.click();
  await roles('registry:admin').check();
  await page.getByRole('dialog', { name: 'Edit Acme Payments' }).getByRole('button', { name: 'Update' }).click();
  await hidden(page.getByRole('dialog', { name: 'Edit Acme Payments' }));
  expect((await clientNamed('Acme Payments')).roles).toEqual(['demo', 'registry:admin']);

  await edit.click();
  await roles('registry:admin').uncheck();
  await page.getByRole('dialog', { name: 'Edit Acme Payments' }).getByRole('button', { name: 'Update' }).click();
  const confirm = page.getByRole('dialog', { name: 'Update Acme Payments?' });
  await visible(confirm);
  await containsText(confirm, 'Acme Payments loses the role registry:admin: the calls only it allows will be refused (role_forbidden)');
  await confirm.getByRole('button', { name: 'Update' }).click();
  await hidden(page.getByRole('dialog', { name: 'Edit Acme Payments' }));
  expect((await clientNamed('Acme Payments')).roles).toEqual(['demo']);
});

browserTest('every registry call was signed in the browser (x-date, no Date) and no request carried the admin private key', async () => {
  const calls = requests.filter((r: Request) => new URL(r.url()).pathname.startsWith('/registry/'));
  expect(calls.length).toBeGreaterThanOrEqual(8);
  for (const call of calls) {
    const headers = await call.allHeaders();
    expect(headers['signature-input']).toMatch(/^sig=\("@method" "@target-uri"( "content-digest")? "x-date"\);created=\d+;keyid="c_[A-Za-z0-9_-]{22}";alg="rsa-v1_5-sha256"$/);
    expect(headers['x-date']).toMatch(/ GMT$/);
    expect(headers.date).toBeUndefined();
    const everything = `${call.url()}\n${JSON.stringify(headers)}\n${call.postData() ?? ''}`;
    expect(everything).not.toContain(session.admin.keyText.slice(20, 80));
    expect(everything).not.toMatch(/PRIVATE KEY/);
  }
  // Not persisted: "Remember" was not ticked.
  expect(await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).not.toContain('signet-portal');
  expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
  expect(session.pageErrors).toEqual([]);
  expect(session.consoleErrors.filter((text) => /Content Security Policy|Refused to/.test(text))).toEqual([]);
});

browserTest('sign-in refusals say what to do and keep the chosen files: public.pem chosen as the key; a key whose client has no registry role', async () => {
  await page.getByRole('button', { name: 'Sign out and forget the key' }).click();
  await visible(page.getByRole('heading', { name: 'Load the admin key' }));
  const files = page.getByLabel('Admin private key file');
  const chosen = () => files.evaluate((input: HTMLInputElement) => Array.from(input.files ?? [], (f) => f.name)) as Promise<string[]>;
  const registryCalls = () => requests.filter((r: Request) => new URL(r.url()).pathname.startsWith('/registry/')).length;
  const callsBefore = registryCalls();

  await files.setInputFiles([join(session.home, 'admin', 'public.pem'), join(session.home, 'admin', 'client-id')]);
  await page.getByRole('button', { name: 'Use this key' }).click();
  await hasText(page.locator('#key-file-error'), 'This file holds a public key; choose your private key (private.pkcs8.b64 or private.pem).');
  expect(await page.locator('#key-file-error').getAttribute('data-code')).toBe('invalid_private_key');
  expect(await chosen()).toEqual(['public.pem', 'client-id']);
  expect(registryCalls()).toBe(callsBefore);

  // A client with only the demo role: the registry answers role_forbidden; the page says what it means.
  const key = nextTestKey();
  const partner = await createClientFor(session.gateway, session.admin, { name: 'No Role Partner', publicKey: spkiPemOf(key.publicKey) });
  const dir = join(session.home, 'no-role-partner');
  writeClientDir(dir, partner.clientId, key);
  await page.getByLabel('Admin client ID').fill('');
  await files.setInputFiles([join(dir, 'private.pkcs8.b64'), join(dir, 'client-id')]);
  await hasValue(page.getByLabel('Admin client ID'), partner.clientId);
  await page.getByRole('button', { name: 'Use this key' }).click();
  await hasText(
    page.locator('#sign-in-error'),
    `This key has no registry role: client ${partner.clientId} may not manage clients. Sign in with an admin key (registry:admin, or account:admin for a partner's account), e.g. $SIGNET_HOME/admin/private.pkcs8.b64.`,
  );
  expect(await page.locator('#sign-in-error').getAttribute('data-code')).toBe('role_forbidden');
  expect(await chosen()).toEqual(['private.pkcs8.b64', 'client-id']);
  await hidden(page.locator('#signer-status'));

  // Signed in, the file input lets go of the key file.
  await page.getByLabel('Admin client ID').fill('');
  await files.setInputFiles([join(session.home, 'admin', 'private.pkcs8.b64'), join(session.home, 'admin', 'client-id')]);
  await page.getByRole('button', { name: 'Use this key' }).click();
  await hasText(page.locator('#signer-id'), session.admin.clientId);
  await eventually(chosen, (names) => expect(names).toEqual([]));
});

browserTest('"Remember" keeps a non-extractable key on this device until "Sign out"', async () => {
  await page.reload();
  await visible(page.getByRole('heading', { name: 'Load the admin key' }));
  await page.getByLabel('Admin private key file').setInputFiles(join(session.home, 'admin', 'private.pem'));
  await page.getByLabel('Admin client ID').fill(session.admin.clientId);
  // On npm start's loopback address, the box says what remembering costs there.
  const origin = new URL(session.gateway.url).origin;
  await hasText(
    page.locator('#remember-warning'),
    `This page is served from ${origin}, an address any local development server may use: a key remembered here can sign for whatever another tool serves at ${origin} later. Remember only a local admin key, never one a deployed registry trusts.`,
  );
  expect(await page.getByLabel(/Remember the key on this device/).getAttribute('aria-describedby')).toBe('remember-warning');
  await page.getByLabel(/Remember the key on this device/).check();
  await page.getByRole('button', { name: 'Use this key' }).click();
  await visible(page.locator('#signer-remembered'));
  expect(
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const open = indexedDB.open('signet-portal');
          open.onsuccess = () => {
            const get = open.result.transaction('signing-keys').objectStore('signing-keys').get('admin');
            get.onsuccess = () => resolve({ extractable: get.result.privateKey.extractable, usages: get.result.privateKey.usages, keyId: get.result.keyId });
          };
        }),
    ),
  ).toEqual({ extractable: false, usages: ['sign'], keyId: session.admin.clientId });

  await page.reload();
  await hasText(page.locator('#signer-id'), session.admin.clientId);
  await visible(rowOf('Acme Payments'));
  // A visit on which the API cannot be reached keeps the remembered key for the next one.
  await page.route('**/registry/roles', (route: { abort(reason: string): Promise<void> }) => route.abort('connectionrefused'));
  await page.reload();
  await visible(page.locator('#sign-in-error'));
  await page.unroute('**/registry/roles');
  await page.reload();
  await hasText(page.locator('#signer-id'), session.admin.clientId);
  // A second tab, signed in with the remembered key: signing out in one signs out both.
  const other = await session.context.newPage();
  await other.goto(`${session.gateway.url}/portal/`);
  await hasText(other.locator('#signer-id'), session.admin.clientId);
  // Each tab loads itself again (nothing of the old page, the key object included, is left).
  await page.evaluate(() => Object.assign(window, { beforeSignOut: true }));
  await other.evaluate(() => Object.assign(window, { beforeSignOut: true }));
  // A third tab still signing in with the remembered key (its first call held) when the first signs out.
  const third = await session.context.newPage();
  let releaseRoles!: () => void;
  const rolesHeld = new Promise<void>((resolve) => (releaseRoles = resolve));
  let rolesAsked!: () => void;
  const thirdSigningIn = new Promise<void>((resolve) => (rolesAsked = resolve));
  await third.route('**/registry/roles', async (route: { continue(): Promise<void> }) => {
    rolesAsked();
    await rolesHeld;
    await route.continue();
  });
  await third.goto(`${session.gateway.url}/portal/`);
  await thirdSigningIn;
  await page.getByRole('button', { name: 'Sign out and forget the key' }).click();
  await visible(page.getByRole('heading', { name: 'Load the admin key' }));
  await hidden(page.locator('#signer-status'));
  await hasText(page.locator('#announcer'), 'Signed out; the key is gone from this page and this device.');
  await focused(page.getByLabel('Admin private key file'));
  await visible(other.getByRole('heading', { name: 'Load the admin key' }));
  await hidden(other.locator('#signer-status'));
  expect(await page.evaluate(() => 'beforeSignOut' in window)).toBe(false);
  expect(await other.evaluate(() => 'beforeSignOut' in window)).toBe(false);
  await other.close();
  // Its call answered, it does not finish signing in: it loads itself again, signed out.
  const reloaded = third.waitForEvent('load');
  releaseRoles();
  await reloaded;
  await visible(third.getByRole('heading', { name: 'Load the admin key' }));
  await hidden(third.locator('#signer-status'));
  await third.close();
  await page.reload();
  await visible(page.getByRole('heading', { name: 'Load the admin key' }));
  await hidden(page.locator('#signer-status'));
  expect(await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name))).not.toContain('signet-portal');
});

browserTest('a browser clock 120 days ahead: calls still succeed on the server clock, and every key shows as due for rotation', async () => {
  const ahead = await session.context.newPage();
  await ahead.clock.install({ time: new Date(Date.now() + 120 * 86_400_000) });
  await ahead.goto(`${session.gateway.url}/portal/`);
  await ahead.getByLabel('Admin private key file').setInputFiles([join(session.home, 'admin', 'private.pkcs8.b64'), join(session.home, 'admin', 'client-id')]);
  await ahead.getByRole('button', { name: 'Use this key' }).click();
  const row = ahead.locator(`#client-rows tr[data-client-id="${acmeId}"]`);
  await visible(row);
  await hasText(row.locator('td.due'), '⚠ 1 key, 1 older than 90 days');
  await row.getByRole('button', { name: 'Details' }).click();
  await containsText(ahead.locator(`#details-${acmeId} tr.due`), 'older than 90 days, rotate it');
  await ahead.close();
});
