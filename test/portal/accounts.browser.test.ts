/**
 * Accounts in the client portal, in a real browser (Debian's Chromium driven by playwright-core)
 * against `npm start`'s gateway:
 * - an account admin (`account:admin`) signed in sees its account and only its clients, is
 *   offered only the roles of its account's ceiling, and a client it adds lands in its account;
 * - an operator (`registry:admin`) gets the operator view: an account picker over every account,
 *   each account's clients listed, and a client it adds lands in the account it picked.
 * Every effect is checked through the registry API from Node as well.
 *
 * Without Chromium or playwright-core this test fails and says what to install
 * (test/support/portal-browser.ts).
 */
import { join } from 'node:path';
import { spkiPemOf } from '../../lambda/core/keys';
import { writeClientDir } from '../../local/client-dir';
import type { TestSigner } from '../local/gateway-process';
import { type Page, type PortalSession, browserTest, containsText, count, eventually, hidden, registryCall, signIn as signInAt, startPortalSession, visible } from '../support/portal-browser';
import { nextTestKey } from '../support/test-keys';

jest.setTimeout(240_000);

let session: PortalSession;
let page: Page;
let operator: TestSigner;

let accountA: string;
let accountB: string;
let acmeAdminDir: string;
let acmeAdminId: string;

async function registry(signer: TestSigner, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  return registryCall(session.gateway, signer, path, { body });
}

async function createClient(body: Record<string, unknown>): Promise<string> {
  const answer = await registry(operator, '/registry/clients', { networkWhitelist: ['0.0.0.0'], publicKey: spkiPemOf(nextTestKey().publicKey), ...body });
  expect(answer.status).toBe(201);
  return answer.body.clientId as string;
}

beforeAll(async () => {
  session = await startPortalSession('portal-accounts');
  page = session.page;
  operator = session.admin;

  accountA = (await registry(operator, '/registry/accounts', { name: 'Acme', roleCeiling: ['demo'] })).body.accountId;
  accountB = (await registry(operator, '/registry/accounts', { name: 'Globex', roleCeiling: ['demo'] })).body.accountId;
  const acmeKey = nextTestKey();
  const created = await registry(operator, '/registry/clients', {
    accountId: accountA,
    name: 'Acme admin',
    networkWhitelist: ['0.0.0.0'],
    publicKey: spkiPemOf(acmeKey.publicKey),
    roles: ['account:admin'],
  });
  expect(created.status).toBe(201);
  acmeAdminId = created.body.clientId;
  acmeAdminDir = join(session.home, 'acme-admin');
  writeClientDir(acmeAdminDir, acmeAdminId, acmeKey);
  await createClient({ accountId: accountA, name: 'Acme app', roles: ['demo'] });
  await createClient({ accountId: accountB, name: 'Globex app', roles: ['demo'] });
});

afterAll(async () => {
  await session?.close();
});

/** The names in the client list, sorted. */
const listedNames = (expected: string[]) =>
  eventually(
    () => page.locator('#client-rows tr[data-client-id] th').allInnerTexts() as Promise<string[]>,
    (names) => expect(names.map((n) => n.trim()).sort()).toEqual([...expected].sort()),
  );

const signIn = (dir: string) => signInAt(page, session.gateway.url, dir);

browserTest("an account admin sees its account and only its clients, is offered its ceiling's roles, and adds clients to its account", async () => {
  await signIn(acmeAdminDir);
  await containsText(page.locator('#account-line'), 'Acme');
  await containsText(page.locator('#account-id'), accountA);
  await containsText(page.locator('#account-ceiling'), 'demo');
  await hidden(page.locator('#operator-view'));
  // Accounts are the operators' to create and edit: an account admin is offered neither.
  await hidden(page.getByRole('button', { name: '+ Account' }));
  await hidden(page.getByRole('button', { name: /^Edit account/ }));
  await listedNames(['Acme admin', 'Acme app']);

  await page.getByRole('button', { name: '+ Client' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add client' });
  await visible(dialog);
  const roleBoxes = dialog.getByRole('group', { name: 'Assign roles' }).getByRole('checkbox');
  await eventually(() => roleBoxes.evaluateAll((boxes: HTMLInputElement[]) => boxes.map((b) => b.value)) as Promise<string[]>, (values) => expect(values).toEqual(['demo']));
  await dialog.getByLabel('Name').fill('Acme mobile');
  await dialog.getByLabel('Address or CIDR range').fill('0.0.0.0');
  await dialog.getByRole('button', { name: 'Add to list' }).click();
  await dialog.getByLabel('Public Key').fill(spkiPemOf(nextTestKey().publicKey));
  await roleBoxes.first().check();
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await hidden(dialog);
  await listedNames(['Acme admin', 'Acme app', 'Acme mobile']);

  const listed = await registry(operator, `/registry/clients?account=${accountA}`);
  expect(listed.body.clients.find((c: { name: string }) => c.name === 'Acme mobile')).toMatchObject({ accountId: accountA, roles: ['demo'] });

  // Its account's changes: the account's audit, as the registry lists it (newest first).
  await page.getByRole('button', { name: 'Account changes' }).click();
  const audit = (await registry(operator, `/registry/accounts/${accountA}/audit?limit=10`)).body.entries as Array<{ at: string; action: string }>;
  const changes = page.locator('#account-audit');
  await count(changes.locator('tbody tr'), audit.length);
  expect(await changes.locator('tbody tr').evaluateAll((rows: HTMLElement[]) => rows.map((r) => r.dataset.action))).toEqual(audit.map((e) => e.action));
  expect(audit.map((e) => e.action)).toContain('account.created');
  await page.getByRole('button', { name: 'Sign out and forget the key' }).click();
  await visible(page.getByRole('heading', { name: 'Load the admin key' }));
});

browserTest('the operator view: every account in a picker, each one\'s clients, new clients in the account picked', async () => {
  await signIn(session.admin.dir);
  await visible(page.locator('#operator-view'));
  await hidden(page.locator('#account-line'));
  const picker = page.getByLabel('Operator view: clients of the account');
  await eventually(() => picker.evaluate((s: HTMLSelectElement) => Array.from(s.options, (o) => o.value)) as Promise<string[]>, (values) => expect(values).toEqual(['acct_default', accountA, accountB]));
  await listedNames(['local admin', 'local demo']);

  await picker.selectOption(accountA);
  await listedNames(['Acme admin', 'Acme app', 'Acme mobile']);
  await picker.selectOption(accountB);
  await listedNames(['Globex app']);

  await page.getByRole('button', { name: '+ Client' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add client' });
  await dialog.getByLabel('Name').fill('Globex reports');
  await dialog.getByLabel('Address or CIDR range').fill('203.0.113.0/24');
  await dialog.getByRole('button', { name: 'Add to list' }).click();
  await dialog.getByLabel('Public Key').fill(spkiPemOf(nextTestKey().publicKey));
  await dialog.getByRole('group', { name: 'Assign roles' }).getByLabel('demo', { exact: true }).check();
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await hidden(dialog);
  await listedNames(['Globex app', 'Globex reports']);
  const listed = await registry(operator, `/registry/clients?account=${accountB}`);
  expect(listed.body.clients.map((c: { name: string }) => c.name).sort()).toEqual(['Globex app', 'Globex reports']);
  expect(session.pageErrors).toEqual([]);
});
