/**
 * The portal's flows, each clicked through in Chromium against `npm start`'s gateway
 * (test/support/portal-browser.ts), each effect checked through the registry API from Node:
 * - an operator creates an account (+ Account), lands on its empty state (what to do first), and
 *   edits it (name, role ceiling; taking a role out asks first);
 * - the last key of a client cannot be removed, and the page says why before anyone tries (the
 *   registry refuses it too, with `last_key`);
 * - keys older than the rotation interval are flagged in the list and the details: exactly the
 *   keys `GET /registry/keys/expiring` (`signet keys expiring`) lists; a rollover clears the flag;
 * - every change ends with a toast: dismissable, hiding by itself unless read;
 * - the list pages (25 at a time, "Load more"), never fetching every client up front;
 * - search (name, clientId or key fingerprint), the status and role filters, and sorting by name,
 *   creation and last use go to the registry (q, status, role, sort, order) and show its answer,
 *   with created and last used columns ("never" when no use is recorded), and an empty search
 *   says how to get back.
 * - a client whose keys come from a JWKS URL (served by the test on 127.0.0.1): chosen in the form,
 *   its source's state and its keys (kid, thumbprint) in the details, and "Refresh keys now" saying
 *   what a fetch did, or that it failed and the keys were kept.
 * - a change to one client draws the list again without reading again the failures and changes of
 *   the other clients whose details are open (their rows do not move under the pointer); its own
 *   changes are read again in place.
 * The key "added 120 days ago" is written through the gateway's own store (DynamoDB Local) with a
 * clock 120 days back, never a mock.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, spkiPemOf } from '../../lambda/core/keys';
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
  hasText,
  hidden,
  lastToast,
  listedNames,
  registryCall,
  rowOf,
  signIn,
  startPortalSession,
  storeAt,
  texts,
  visible,
} from '../support/portal-browser';
import { nextTestKey } from '../support/test-keys';

jest.setTimeout(240_000);

let session: PortalSession;
let page: Page;
const listCalls: string[] = [];

const registry = (path: string, send: { method?: string; body?: unknown } = {}) => registryCall(session.gateway, session.admin, path, send);

/** The client "Old Partner", whose only key was added 120 days ago. */
let old: { clientId: string; fingerprint: string };
let partnerAccount: string;

beforeAll(async () => {
  session = await startPortalSession('portal-flows');
  page = session.page;
  page.on('request', (request: any) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname === '/registry/clients') listCalls.push(url.search);
  });
  const key = nextTestKey();
  const aged = await storeAt(session.home, 120).createClient(
    { name: 'Old Partner', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: { fingerprint: key.fingerprint, spkiPem: spkiPemOf(key.publicKey) } },
    'bootstrap',
  );
  old = { clientId: aged.record.clientId, fingerprint: key.fingerprint };
  await signIn(page, session.gateway.url, session.admin.dir);
});

afterAll(async () => {
  await session?.close();
});

const short = (fingerprint: string) => `${fingerprint.slice(0, 8)}…${fingerprint.slice(-6)}`;

browserTest('an operator creates an account from the portal, lands on its empty state, and edits its name and role ceiling (taking a role out asks first)', async () => {
  await page.getByRole('button', { name: '+ Account' }).click();
  const dialog = page.getByRole('dialog', { name: 'New account' });
  await visible(dialog);
  await focused(dialog.getByLabel('Account name'));
  // The ceiling never offers registry:admin.
  const ceiling = dialog.getByRole('group', { name: 'Role ceiling' });
  expect(await ceiling.getByRole('checkbox').evaluateAll((boxes: HTMLInputElement[]) => boxes.map((b) => b.value))).not.toContain('registry:admin');
  await dialog.getByRole('button', { name: 'Create account' }).click();
  await hasText(dialog.locator('#account-name-error'), /name/);
  await dialog.getByLabel('Account name').fill('Initech');
  await ceiling.getByLabel('demo', { exact: true }).check();
  await ceiling.getByLabel('account:admin', { exact: true }).check();
  await dialog.getByRole('button', { name: 'Create account' }).click();
  await hidden(dialog);

  const accounts = (await registry('/registry/accounts?limit=100')).body.accounts as Array<Record<string, any>>;
  const created = accounts.find((a) => a.name === 'Initech')!;
  expect(created.roleCeiling.sort()).toEqual(['account:admin', 'demo']);
  partnerAccount = created.accountId;
  await containsText(lastToast(page), `Account Initech created (${partnerAccount}). Add its first client with + Client.`);
  // The picker shows the new account, whose list is empty: the page says what to do first.
  expect(await page.getByLabel('Operator view: clients of the account').inputValue()).toBe(partnerAccount);
  await hidden(page.locator('#no-partner-accounts'));
  const empty = page.locator('#empty-state');
  await visible(empty);
  await hidden(page.locator('#client-table'));
  await hasText(empty.getByRole('heading'), 'No clients in Initech yet');
  await empty.getByRole('button', { name: '+ Add the first client' }).click();
  const add = page.getByRole('dialog', { name: 'Add client' });
  await visible(add);
  // The roles an operator may give, the catalogue; the client goes into the account shown.
  await add.getByLabel('Name').fill('Initech billing');
  await add.getByLabel('Address or CIDR range').fill('198.51.100.0/24');
  await add.getByRole('button', { name: 'Add to list' }).click();
  await add.getByLabel('Public Key').fill(spkiPemOf(nextTestKey().publicKey));
  await add.getByRole('group', { name: 'Assign roles' }).getByLabel('demo', { exact: true }).check();
  await add.getByRole('button', { name: 'Add', exact: true }).click();
  await hidden(add);
  await visible(rowOf(page, 'Initech billing'));
  await hidden(empty);
  await containsText(lastToast(page), 'Initech billing added with clientId');
  const listed = await registry(`/registry/clients?account=${partnerAccount}`);
  expect(listed.body.clients.map((c: { name: string }) => c.name)).toEqual(['Initech billing']);

  // Edit: rename, and take account:admin out of the ceiling (asks first, naming the role).
  await page.getByRole('button', { name: 'Edit account Initech' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit account Initech' });
  await visible(edit);
  await edit.getByLabel('Account name').fill('Initech Corp');
  await edit.getByRole('group', { name: 'Role ceiling' }).getByLabel('account:admin', { exact: true }).uncheck();
  await edit.getByRole('button', { name: 'Save account' }).click();
  const confirm = page.getByRole('dialog', { name: "Take account:admin out of Initech's ceiling?" });
  await visible(confirm);
  await containsText(confirm, 'The account admins of Initech will no longer be able to give account:admin to its clients (role_not_allowed). Clients that already hold it keep it.');
  await confirm.getByRole('button', { name: 'Save account' }).click();
  await hidden(edit);
  await containsText(lastToast(page), 'Account Initech Corp saved: its admins may give demo.');
  const saved = (await registry(`/registry/accounts/${partnerAccount}`)).body;
  expect(saved).toMatchObject({ name: 'Initech Corp', roleCeiling: ['demo'], version: 2 });
  await containsText(page.getByLabel('Operator view: clients of the account'), 'Initech Corp');
  await containsText(page.locator('#account-select-ceiling'), 'Its admins may give: demo.');

  // The account's changes, newest first, a page of 10 at a time, exactly as
  // GET /registry/accounts/{id}/audit lists them (eleven more renames make a second page).
  for (let version = 2; version <= 12; version++) {
    const renamed = await registry(`/registry/accounts/${partnerAccount}`, { method: 'PATCH', body: { name: `Initech Corp ${version}`, version } });
    expect(renamed.status).toBe(200);
  }
  const first = (await registry(`/registry/accounts/${partnerAccount}/audit?limit=10`)).body;
  const second = (await registry(`/registry/accounts/${partnerAccount}/audit?limit=10&cursor=${encodeURIComponent(first.nextCursor)}`)).body;
  const instant = (entry: { at: string }) => entry.at.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  const toggle = page.getByRole('button', { name: 'Account changes' });
  await toggle.click();
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  const changes = page.locator('#account-audit');
  const whens = () => changes.locator('tbody td:first-child').allInnerTexts() as Promise<string[]>;
  await count(changes.locator('tbody tr'), 10);
  expect(await whens()).toEqual(first.entries.map(instant));
  await hasText(changes.locator('tbody tr').first().locator('td').last(), 'Changed name Initech Corp 11 → Initech Corp 12');
  await hasText(changes.locator('tbody tr').first().locator('td').nth(1), `you (${session.admin.clientId})`);
  await changes.getByRole('button', { name: 'Load more changes' }).click();
  await count(changes.locator('tbody tr'), 10 + second.entries.length);
  expect(await whens()).toEqual([...first.entries, ...second.entries].map(instant));
  if (second.nextCursor === undefined) await hidden(changes.getByRole('button', { name: 'Load more changes' }));
  await containsText(changes.locator('tbody tr').last(), 'Account created');
  await toggle.click();
  await hidden(changes);

  await page.getByLabel('Operator view: clients of the account').selectOption('acct_default');
  await visible(rowOf(page, 'Old Partner'));
});

browserTest('the last key: its Remove button is disabled and the page says why and what to do instead; the registry refuses it too (last_key)', async () => {
  const row = rowOf(page, 'local demo');
  await row.getByRole('button', { name: 'Details' }).click();
  const demo = (await registry('/registry/clients?limit=100')).body.clients.find((c: { name: string }) => c.name === 'local demo');
  const details = page.locator(`#details-${demo.clientId}`);
  const remove = details.getByRole('button', { name: `Remove key ${short(demo.keys[0].fingerprint)} of local demo` });
  expect(await remove.isDisabled()).toBe(true);
  const note = details.locator('.last-key');
  await hasText(note, `Key ${short(demo.keys[0].fingerprint)} is the only active key of local demo, so it cannot be removed: the client would be locked out. To replace it, add the new key first, then remove this one once local demo signs with the new key.`);
  // The explanation is the button's description (screen readers hear it on the button).
  expect(await remove.getAttribute('aria-describedby')).toBe(await note.getAttribute('id'));
  const refused = await registry(`/registry/clients/${demo.clientId}/keys/${demo.keys[0].fingerprint}`, { method: 'DELETE' });
  expect([refused.status, refused.body.error]).toEqual([409, 'last_key']);
  await row.getByRole('button', { name: 'Details' }).click();
});

browserTest('keys older than 90 days are flagged in the list and the details, exactly those GET /registry/keys/expiring lists; a rollover clears the flag', async () => {
  const expiring = (await registry('/registry/keys/expiring?limit=100')).body;
  expect(expiring.olderThanDays).toBe(90);
  expect(expiring.keys.map((k: { fingerprint: string }) => k.fingerprint)).toEqual([old.fingerprint]);
  // The list: only Old Partner's Keys cell is flagged.
  await hasText(rowOf(page, 'Old Partner').locator('td.due'), '⚠ 1 key, 1 older than 90 days');
  await count(page.locator('#client-rows td.due'), 1);
  await rowOf(page, 'Old Partner').getByRole('button', { name: 'Details' }).click();
  const details = page.locator(`#details-${old.clientId}`);
  const keys = details.getByRole('table', { name: 'Keys of Old Partner' });
  await hasText(keys.locator('tbody tr.due td').nth(3), '⚠ 120 days — older than 90 days, rotate it');
  const flagged = await keys.locator('tbody tr.due').evaluateAll((rows: HTMLElement[]) => rows.map((r) => r.dataset.fingerprint));
  expect(flagged).toEqual(expiring.keys.map((k: { fingerprint: string }) => k.fingerprint));

  // Rotate: add the new key (the old one stays flagged), then remove the old one.
  const next = nextTestKey();
  await page.getByRole('button', { name: 'Add key to Old Partner' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a key to Old Partner' });
  await dialog.getByLabel('New public key').fill(spkiPemOf(next.publicKey));
  await containsText(dialog.locator('#new-key-ok'), next.fingerprint);
  await dialog.getByRole('button', { name: 'Add key' }).click();
  await hidden(dialog);
  await count(keys.locator('tbody tr'), 2);
  await count(keys.locator('tbody tr.due'), 1);
  await hasText(rowOf(page, 'Old Partner').locator('td.due'), '⚠ 2 keys, 1 older than 90 days');
  await details.getByRole('button', { name: `Remove key ${short(old.fingerprint)} of Old Partner` }).click();
  await page.getByRole('dialog', { name: `Remove key ${short(old.fingerprint)} from Old Partner?` }).getByRole('button', { name: 'Remove key' }).click();
  await count(keys.locator('tbody tr'), 1);
  await count(page.locator('#client-rows td.due'), 0);
  await count(keys.locator('tbody tr.due'), 0);
  expect((await registry('/registry/keys/expiring?limit=100')).body.keys).toEqual([]);
  await rowOf(page, 'Old Partner').getByRole('button', { name: 'Details' }).click();
});

browserTest('a toast confirms each change: a polite status region, dismissable, and it hides by itself unless it is being read', async () => {
  const region = page.locator('#toasts');
  expect(await region.getAttribute('role')).toBe('status');
  expect(await region.getAttribute('aria-live')).toBe('polite');
  const disable = page.getByRole('button', { name: 'Disable Old Partner' });
  await disable.click();
  await page.getByRole('dialog', { name: 'Disable Old Partner?' }).getByRole('button', { name: 'Disable' }).click();
  const toast = lastToast(page);
  await hasText(toast.locator('.toast-text'), 'Old Partner is now disabled. It applies to the next request.');
  // Dismissed from the keyboard, focus goes back where it was before it came to the toast.
  const enable = page.getByRole('button', { name: 'Enable Old Partner' });
  await focused(enable);
  await toast.getByRole('button', { name: 'Dismiss' }).focus();
  await page.keyboard.press('Enter');
  await count(region.locator('.toast', { hasText: 'Old Partner is now disabled.' }), 0);
  await focused(enable);

  // Hiding by itself: on a page whose clock the test moves (no real wait).
  const timed = await session.context.newPage();
  await timed.clock.install();
  await signIn(timed, session.gateway.url, session.admin.dir);
  await timed.getByRole('button', { name: 'Enable Old Partner' }).click();
  const shown = timed.locator('#toasts .toast');
  await hasText(shown.locator('.toast-text'), 'Old Partner is now active. It applies to the next request.');
  // Pointer on it: it stays.
  await shown.hover();
  await timed.clock.runFor(20_000);
  await visible(shown);
  // Pointer gone: it hides once its time is up (the clock moved on until it has).
  await timed.mouse.move(0, 0);
  await timed.clock.runFor(6_000);
  await count(timed.locator('#toasts .toast'), 0);
  // Two changes in a row: the second confirmation replaces the first (the corner covers the tables' right end).
  await timed.getByRole('button', { name: 'Disable Old Partner' }).click();
  await timed.getByRole('dialog', { name: 'Disable Old Partner?' }).getByRole('button', { name: 'Disable' }).click();
  await hasText(shown.locator('.toast-text'), 'Old Partner is now disabled. It applies to the next request.');
  await timed.getByRole('button', { name: 'Enable Old Partner' }).click();
  await hasText(lastToast(timed).locator('.toast-text'), 'Old Partner is now active. It applies to the next request.');
  // Counted at once, not waited for: the first would also go by itself once its time is up.
  expect(await shown.count()).toBe(1);
  await timed.close();
  expect((await registry(`/registry/clients/${old.clientId}`)).body.status).toBe('active');
});

browserTest('the list shows 25 clients at a time and "Load more" fetches the next page: never every client up front', async () => {
  for (let i = 1; i <= 31; i++) await createClientFor(session.gateway, session.admin, { name: `Partner ${String(i).padStart(2, '0')}` });
  const total = (await registry('/registry/clients?limit=100')).body.clients.length;
  expect(total).toBe(34);
  listCalls.length = 0;
  await page.getByRole('button', { name: 'Refresh' }).click();
  await count(page.locator('#client-rows tr[data-client-id]'), 25);
  expect(listCalls).toHaveLength(1);
  expect(new URLSearchParams(listCalls[0]).get('limit')).toBe('25');
  expect(new URLSearchParams(listCalls[0]).get('cursor')).toBeNull();
  await containsText(page.locator('#list-count'), 'Showing the first 25 clients; Load more for the next 25.');
  await page.getByRole('button', { name: 'Load more clients' }).click();
  await count(page.locator('#client-rows tr[data-client-id]'), total);
  expect(listCalls).toHaveLength(2);
  expect(new URLSearchParams(listCalls[1]).get('cursor')).not.toBeNull();
  await hidden(page.getByRole('button', { name: 'Load more clients' }));
  await eventually(async () => page.locator('#list-count').innerText() as Promise<string>, (text) => expect(text).toBe(`${total} clients.`));
  expect(session.pageErrors).toEqual([]);
});

browserTest('search, filters and sort go to the registry and show its answer; created and last used columns ("never" when unused); an empty search says how to get back', async () => {
  // Uses: one real signed request (the authorizer records it), two recorded 3 and 40 days ago.
  const partner = nextTestKey();
  const used = await createClientFor(session.gateway, session.admin, { name: 'Zeta Used Today', publicKey: spkiPemOf(partner.publicKey) });
  expect((await sendSigned({ clientId: used.clientId, privateKey: partner.key }, `${session.gateway.url}/api/echo`)).status).toBe(200);
  const all = (await registry('/registry/clients?limit=100')).body.clients as Array<Record<string, any>>;
  const byName = (name: string) => all.find((c) => c.name === name)!;
  for (const [name, days] of [['Partner 03', 3], ['Partner 20', 40]] as const) {
    expect(await storeAt(session.home, days).recordKeyUse(byName(name).clientId, byName(name).keys[0].fingerprint)).toBe(true);
  }
  await eventually(async () => (await registry(`/registry/clients/${used.clientId}`)).body.lastUsedAt, (at) => expect(typeof at).toBe('string'));
  const disabled = await registry(`/registry/clients/${byName('Partner 07').clientId}/disable`, { body: {} });
  expect(disabled.status).toBe(200);

  const names = async () => (await listedNames(page)).map((n) => n.trim());
  const lastListing = () => new URLSearchParams(listCalls[listCalls.length - 1]);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await count(page.locator('#client-rows tr[data-client-id]'), 25);

  // Search by name (any case).
  const search = page.getByRole('searchbox', { name: 'Search' });
  await search.fill('partner 1');
  await search.press('Enter');
  await eventually(names, (shown) => expect(shown).toEqual(Array.from({ length: 10 }, (_, i) => `Partner 1${i}`)));
  expect(lastListing().get('q')).toBe('partner 1');
  expect(lastListing().get('limit')).toBe('25');
  await hasText(page.locator('#list-count'), 'Showing 10 of 10 matching clients.');
  // By the start of a clientId, and of a key fingerprint.
  await search.fill(byName('Partner 22').clientId.slice(0, 10));
  await search.press('Enter');
  await eventually(names, (shown) => expect(shown).toEqual(['Partner 22']));
  await search.fill(byName('Partner 23').keys[0].fingerprint.slice(0, 12));
  await search.press('Enter');
  await eventually(names, (shown) => expect(shown).toEqual(['Partner 23']));
  // Nothing matches: the page says so and how to get back.
  await search.fill('no such partner');
  await search.press('Enter');
  await visible(page.locator('#empty-filtered'));
  await hidden(page.locator('#client-table'));
  await hasText(page.locator('#empty-filtered-title'), 'No client matches “no such partner” with these filters.');
  await page.getByRole('button', { name: 'Clear search and filters' }).click();
  await count(page.locator('#client-rows tr[data-client-id]'), 25);
  await focused(search);
  expect(lastListing().get('q')).toBeNull();

  // Filters: status, role.
  await page.getByLabel('Status', { exact: true }).selectOption('disabled');
  await eventually(names, (shown) => expect(shown).toEqual(['Partner 07']));
  expect(lastListing().get('status')).toBe('disabled');
  await page.getByLabel('Status', { exact: true }).selectOption('');
  await page.getByLabel('Role', { exact: true }).selectOption('registry:admin');
  await eventually(names, (shown) => expect(shown).toEqual(['local admin']));
  expect(lastListing().get('role')).toBe('registry:admin');
  await page.getByRole('button', { name: 'Clear', exact: true }).click();
  await count(page.locator('#client-rows tr[data-client-id]'), 25);

  // Sort: by name (A→Z, then Z→A), as the registry orders it; paged with "Load more".
  const registryOrder = async (query: string) => ((await registry(`/registry/clients?limit=100&${query}`)).body.clients as Array<{ name: string }>).map((c) => c.name);
  const nameHeader = page.locator('#client-table th[data-sort-column="name"]');
  expect(await page.locator('#client-table th[data-sort-column="createdAt"]').getAttribute('aria-sort')).toBe('ascending');
  await page.getByRole('button', { name: 'Name' }).click();
  await eventually(() => nameHeader.getAttribute('aria-sort') as Promise<string>, (v) => expect(v).toBe('ascending'));
  const ascending = await registryOrder('sort=name&order=asc');
  await eventually(names, (shown) => expect(shown).toEqual(ascending.slice(0, 25)));
  expect([lastListing().get('sort'), lastListing().get('order')]).toEqual(['name', 'asc']);
  await hasText(page.locator('#list-count'), `Showing 25 of ${ascending.length} clients.`);
  await page.getByRole('button', { name: 'Load more clients' }).click();
  await eventually(names, (shown) => expect(shown).toEqual(ascending));
  await hidden(page.getByRole('button', { name: 'Load more clients' }));
  await page.getByRole('button', { name: 'Name' }).click();
  await eventually(() => nameHeader.getAttribute('aria-sort') as Promise<string>, (v) => expect(v).toBe('descending'));
  await eventually(names, (shown) => expect(shown).toEqual([...ascending].reverse().slice(0, 25)));

  // By creation, newest first.
  await page.getByRole('button', { name: 'Created' }).click();
  await eventually(names, async (shown) => expect(shown).toEqual((await registryOrder('sort=createdAt&order=desc')).slice(0, 25)));
  expect(await rowOf(page, 'Old Partner').count()).toBe(0); // 120 days old: on a later page
  // By last use, most recent first; never-used clients after the used ones, shown as "never".
  await page.getByRole('button', { name: 'Last used' }).click();
  const byUse = await registryOrder('sort=lastUsedAt&order=desc');
  // Used today: Zeta (just now) and the admin (this test's registry calls, which the local gateway
  // records every second, so either may be the later); then 3 and 40 days ago.
  expect([...byUse.slice(0, 2)].sort()).toEqual(['Zeta Used Today', 'local admin'].sort());
  expect(byUse.slice(2, 4)).toEqual(['Partner 03', 'Partner 20']);
  await eventually(names, (shown) => expect(shown).toEqual(byUse.slice(0, 25)));
  expect([lastListing().get('sort'), lastListing().get('order')]).toEqual(['lastUsedAt', 'desc']);
  const usedToday = (await registry(`/registry/clients/${used.clientId}`)).body.lastUsedAt as string;
  await hasText(rowOf(page, 'Zeta Used Today').locator('td.last-used'), usedToday.slice(0, 10));
  expect(await rowOf(page, 'Zeta Used Today').locator('td.last-used').getAttribute('title')).toBe(usedToday.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
  await hasText(rowOf(page, 'Partner 03').locator('td.last-used'), new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10));
  const neverUsed = byUse[24]; // the last of the page: only four clients have a use
  await hasText(rowOf(page, neverUsed).locator('td.last-used'), 'never');
  await hasText(rowOf(page, neverUsed).locator('td.created'), byName(neverUsed).createdAt.slice(0, 10));
  // The key's own last use, in the details.
  await rowOf(page, 'Zeta Used Today').getByRole('button', { name: 'Details' }).click();
  await containsText(page.locator(`#details-${used.clientId}`).getByRole('table', { name: 'Keys of Zeta Used Today' }).locator('tbody tr'), usedToday.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
  expect(session.pageErrors).toEqual([]);
});

browserTest('a client whose keys come from a JWKS URL: chosen in the form, its source state and keys in the details, and Refresh keys now saying what a fetch did or that it failed and the keys were kept', async () => {
  const [one, two] = [generateKeyPair('ed25519'), generateKeyPair('ed25519')];
  const source = { keys: [['one', one]] as Array<[string, typeof one]>, status: 200 };
  const server = createServer((_req, res) => {
    if (source.status !== 200) return void res.writeHead(source.status, { 'content-type': 'text/plain' }).end('down');
    const keys = source.keys.map(([kid, pair]) => ({ ...pair.publicKey.export({ format: 'jwk' }), kid, use: 'sig' }));
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  try {
    await page.getByRole('button', { name: '+ Client' }).click();
    const add = page.getByRole('dialog', { name: 'Add client' });
    await visible(add);
    await add.getByLabel('Name').fill('JWKS Partner');
    await add.getByLabel('Address or CIDR range').fill('127.0.0.1');
    await add.getByRole('button', { name: 'Add to list' }).click();
    await add.getByRole('group', { name: 'Keys' }).getByRole('radio', { name: 'JWKS URL' }).check();
    await hidden(add.getByLabel('Public Key'));
    const field = add.getByRole('textbox', { name: 'JWKS URL' });
    // The core's URL rules, before anything is sent.
    await field.fill('ftp://partner.example/jwks.json');
    await add.getByRole('group', { name: 'Assign roles' }).getByLabel('demo', { exact: true }).check();
    await add.getByRole('button', { name: 'Add', exact: true }).click();
    await hasText(add.locator('#source-url-error'), /^The JWKS URI uses ftp; key sources are fetched over https, or http only to 127\.0\.0\.1 or localhost\.$/);
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await field.fill(url);
    await add.getByRole('button', { name: 'Add', exact: true }).click();
    await hidden(add);
    await containsText(lastToast(page), 'JWKS Partner added with clientId');
    const listed = (await registry('/registry/clients?limit=100')).body.clients.find((c: { name: string }) => c.name === 'JWKS Partner');
    const created = (await registry(`/registry/clients/${listed.clientId}`)).body;
    expect(created.keySource).toEqual({ jwksUri: url });
    const row = rowOf(page, 'JWKS Partner');
    // A listing leaves the source out (its keys say they are published), unless the page already
    // holds the record the create answered with; the details read the client.
    await hasText(row, /1 key (published|from a JWKS URL)/);
    await row.getByRole('button', { name: 'Details' }).click();
    const details = page.locator(`#details-${created.clientId}`);
    await containsText(details, `Keys from JWKS URL: ${url}`);
    await containsText(row, '1 key from a JWKS URL');
    await containsText(details.locator('dl.source-state'), 'Last success');
    const keys = details.getByRole('table', { name: 'Published keys of JWKS Partner' });
    await texts(keys.locator('tbody tr td:first-child'), ['one']);
    await hasText(keys.locator('tbody tr td').nth(1), created.keys[0].thumbprint);

    // The partner rotates at its source; the button fetches now and says what changed.
    source.keys = [['two', two]];
    const refresh = details.getByRole('button', { name: 'Refresh the keys of JWKS Partner now' });
    await refresh.click();
    await hasText(details.locator('.refresh-outcome'), 'Keys of JWKS Partner refreshed: 1 key added, 1 removed.');
    await texts(keys.locator('tbody tr td:first-child'), ['two']);

    // Edit opens on the client's source (read from the registry: a listing leaves it out).
    await row.getByRole('button', { name: 'Edit JWKS Partner' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit JWKS Partner' });
    await visible(edit);
    expect(await edit.getByRole('radio', { name: 'JWKS URL' }).isChecked()).toBe(true);
    expect(await edit.getByRole('textbox', { name: 'JWKS URL' }).inputValue()).toBe(url);
    await containsText(edit.locator('#edit-keys-note'), 'JWKS Partner takes its keys from a JWKS URL');
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await hidden(edit);

    // The source fails: said, recorded, and nothing is removed.
    source.status = 503;
    await details.getByRole('button', { name: 'Refresh the keys of JWKS Partner now' }).click();
    await containsText(details.locator('.refresh-outcome'), 'The keys of JWKS Partner could not be fetched (http_error (HTTP 503)');
    await containsText(details.locator('.refresh-outcome'), 'Nothing was removed: its keys are kept: they verify until ');
    await containsText(details.locator('dl.source-state'), 'Failing since');
    await texts(keys.locator('tbody tr td:first-child'), ['two']);
    expect((await registry(`/registry/clients/${created.clientId}`)).body.keys.map((k: { kid: string }) => k.kid)).toEqual(['two']);
    expect(session.pageErrors).toEqual([]);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});


browserTest('a change to one client draws the list again without reading the other open details again: nothing moves under the pointer, and its own changes are read again in place', async () => {
  const created = [await createClientFor(session.gateway, session.admin, { name: 'Layout One' }), await createClientFor(session.gateway, session.admin, { name: 'Layout Two' })];
  const search = page.getByRole('searchbox', { name: 'Search' });
  await search.fill('Layout');
  await search.press('Enter');
  await count(page.locator('#client-rows tr[data-client-id]'), 2);
  // In whatever order the list is sorted: the change is made to the lower one.
  const [above, below] = (await listedNames(page)).map((name) => created.find((c) => c.name === name.trim()) as Record<string, any>);
  const detailsOf = (client: Record<string, any>) => page.locator(`#details-${client.clientId}`);
  for (const client of [above, below]) {
    await rowOf(page, client.name).getByRole('button', { name: 'Details' }).click();
    await containsText(detailsOf(client).locator('.failures'), 'No refused requests');
    await hasText(detailsOf(client).locator('.audit-trail p[role="status"]'), '1 change, newest first.');
  }
  const reads: string[] = [];
  const onRequest = (request: any) => {
    const path = new URL(request.url()).pathname;
    if (/\/(auth-failures|audit)$/.test(path)) reads.push(path);
  };
  page.on('request', onRequest);
  try {
    // Where each row starts: neither the change nor anything the page reads after it moves a row.
    const tops = () => Promise.all([above, below].map(async (client) => (await rowOf(page, client.name).boundingBox()).y as number));
    const before = await tops();
    await page.getByRole('button', { name: `Disable ${below.name}` }).click();
    await page.getByRole('dialog', { name: `Disable ${below.name}?` }).getByRole('button', { name: 'Disable' }).click();
    await containsText(rowOf(page, below.name), 'disabled');
    // Its own trail is read again and shows the change; the other's stays as it was, unread.
    await hasText(detailsOf(below).locator('.audit-trail p[role="status"]'), '2 changes, newest first.');
    expect(await detailsOf(above).locator('.audit-trail p[role="status"]').innerText()).toBe('1 change, newest first.');
    expect(reads).toEqual([`/registry/clients/${below.clientId}/audit`]);
    expect(await tops()).toEqual(before);
  } finally {
    page.off('request', onRequest);
  }
  await page.getByRole('button', { name: 'Clear', exact: true }).click();
  expect(session.pageErrors).toEqual([]);
});
