/**
 * Key types in the client portal, in Debian's Chromium against `npm start`'s gateway
 * (test/support/portal-browser.ts):
 * - + Client with a key pair generated in the page (Ed25519, the default): the client is created
 *   with an ed25519 key, and the private.pkcs8.b64 the page offered once (a download) signs a
 *   request the gateway lets through (/api/echo, 200). Until it is downloaded the form refuses to
 *   submit; nothing of it is left in the page or its storage;
 * - Add key with a generated ECDSA P-256 pair: both keys listed, each with its type;
 * - signing in with an Ed25519 admin key (private.pkcs8.b64 + client-id): the page signs every
 *   registry call with Ed25519 in Chromium, and the list loads.
 * Every effect is checked through the registry API from Node as well.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, importPrivateKey, importPublicKey, spkiPemOf } from '../../lambda/core/keys';
import { writeClientDir } from '../../local/client-dir';
import { sendSigned } from '../local/gateway-process';
import {
  type Page,
  type PortalSession,
  browserTest,
  containsText,
  count,
  createClientFor,
  focused,
  hasText,
  hidden,
  registryCall,
  rowOf,
  screenshotFolder,
  signIn,
  startPortalSession,
  texts,
  visible,
} from '../support/portal-browser';

jest.setTimeout(240_000);

let session: PortalSession;
let page: Page;

const registry = (path: string) => registryCall(session.gateway, session.admin, path);
const clientNamed = async (name: string) => (await registry('/registry/clients?limit=100')).body.clients.find((c: { name: string }) => c.name === name);

/** What the page's storage and DOM hold, to show a private key is in neither. */
const pageLeftovers = () =>
  page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, html: document.documentElement.outerHTML })) as Promise<string>;

let downloads = 0;

/**
 * Clicks the download button and returns what the page offered: the file's name and text (saved
 * under the session's home first: the browser is the run's, so its own copy is not on this side).
 */
async function download(button: any): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const saved = join(session.home, 'downloads', `${(downloads += 1)}-${file.suggestedFilename()}`);
  await file.saveAs(saved);
  return { name: file.suggestedFilename(), text: readFileSync(saved, 'utf8') };
}

beforeAll(async () => {
  session = await startPortalSession('portal-key-types');
  page = session.page;
  await signIn(page, session.gateway.url, session.admin.dir);
});

afterAll(async () => {
  await session?.close();
});

browserTest('+ Client with an Ed25519 pair generated in the page: created with an ed25519 key; the private.pkcs8.b64 offered once signs a request the gateway lets through', async () => {
  await page.getByRole('button', { name: '+ Client' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add client' });
  await visible(dialog);
  await dialog.getByLabel('Name').fill('Edwards Partner');
  await dialog.getByLabel('Address or CIDR range').fill('127.0.0.1');
  await dialog.getByRole('button', { name: 'Add to list' }).click();
  await dialog.getByRole('group', { name: 'Assign roles' }).getByLabel('demo', { exact: true }).check();

  const type = dialog.getByLabel('No key pair yet? Key type');
  expect(await type.inputValue()).toBe('ed25519');
  expect(await type.locator('option').allInnerTexts()).toEqual(['Ed25519', 'ECDSA P-256', 'ECDSA P-384', 'RSA-2048']);
  await dialog.getByRole('button', { name: 'Generate a key pair' }).click();
  const ok = dialog.locator('#client-key-ok');
  await containsText(ok, 'Ed25519 public key (ed25519), fingerprint ');
  const publicKeyPem = await dialog.getByLabel('Public Key').inputValue();
  const fingerprint = importPublicKey(publicKeyPem).fingerprint;
  await hasText(ok, `Ed25519 public key (ed25519), fingerprint ${fingerprint}`);
  await containsText(dialog.locator('#client-key-private-warning'), 'download it now, once, and give it to the partner\'s signer and no one else. The page keeps no copy');

  // Not before the private key is saved: the client would get a key no one holds.
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await hasText(dialog.locator('#client-key-error'), 'Download the private key (private.pkcs8.b64) first: the page keeps no copy, and without it no one can sign with this key.');
  expect(await dialog.locator('#client-key-error').getAttribute('data-code')).toBe('private_key_not_downloaded');
  expect(await clientNamed('Edwards Partner')).toBeUndefined();

  const button = dialog.getByRole('button', { name: 'Download private.pkcs8.b64' });
  const file = await download(button);
  expect(file.name).toBe('private.pkcs8.b64');
  expect(file.text).toMatch(/^[A-Za-z0-9+/]+=*\n$/);
  const signer = importPrivateKey(file.text);
  expect([signer.fingerprint, signer.algorithm]).toEqual([fingerprint, 'ed25519']);
  // Offered once: the button is spent, and the page keeps the private key nowhere.
  expect(await button.isDisabled()).toBe(true);
  await hidden(dialog.locator('#client-key-error'));
  await containsText(dialog.locator('#client-key-private-status'), 'Downloaded as private.pkcs8.b64. The page has no copy left');
  expect(await pageLeftovers()).not.toContain(file.text.trim());
  expect(await pageLeftovers()).not.toContain(file.text.trim().slice(-40));
  await dialog.screenshot({ path: join(screenshotFolder(), 'generated-key-pair.png') });

  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  await hidden(dialog);
  await visible(rowOf(page, 'Edwards Partner'));
  const record = await clientNamed('Edwards Partner');
  expect(record).toMatchObject({ roles: ['demo'], networkWhitelist: ['127.0.0.1'], keys: [{ fingerprint, algorithm: 'ed25519' }] });

  await rowOf(page, 'Edwards Partner').getByRole('button', { name: 'Details' }).click();
  const keys = page.locator(`#details-${record.clientId}`).getByRole('table', { name: 'Keys of Edwards Partner' });
  await texts(keys.locator('tbody td.key-type'), ['ed25519']);
  await rowOf(page, 'Edwards Partner').getByRole('button', { name: 'Details' }).click();

  const echoed = await sendSigned({ clientId: record.clientId, privateKey: signer.key }, `${session.gateway.url}/api/echo?from=portal-generated-key`);
  expect([echoed.status, echoed.code]).toEqual([200, null]);
  expect(await pageLeftovers()).not.toContain(file.text.trim());
});

browserTest('Add key with an ECDSA P-256 pair generated in the page: both keys listed with their types', async () => {
  const existing = await createClientFor(session.gateway, session.admin, { name: 'Curve Partner' });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await rowOf(page, 'Curve Partner').getByRole('button', { name: 'Details' }).click();
  const keys = page.locator(`#details-${existing.clientId}`).getByRole('table', { name: 'Keys of Curve Partner' });
  await count(keys.locator('tbody tr'), 1);
  await page.getByRole('button', { name: 'Add key to Curve Partner' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a key to Curve Partner' });
  await visible(dialog);
  // The panel of a pair generated earlier (in the client form) is not here.
  await hidden(dialog.locator('#new-key-private'));
  await dialog.getByLabel('No key pair yet? Key type').selectOption('ecdsa-p256');
  await dialog.getByRole('button', { name: 'Generate a key pair' }).click();
  await containsText(dialog.locator('#new-key-ok'), 'ECDSA P-256 public key (ecdsa-p256-sha256), fingerprint ');
  const fingerprint = importPublicKey(await dialog.getByLabel('New public key').inputValue()).fingerprint;

  // Editing the box drops the generated pair (its private key is of no use then); generating again offers a new one.
  await dialog.getByLabel('New public key').fill('');
  await hidden(dialog.locator('#new-key-private'));
  await dialog.getByRole('button', { name: 'Generate a key pair' }).click();
  await visible(dialog.locator('#new-key-private'));
  const publicKeyPem = await dialog.getByLabel('New public key').inputValue();
  const second = importPublicKey(publicKeyPem).fingerprint;
  expect(second).not.toBe(fingerprint);
  const file = await download(dialog.getByRole('button', { name: 'Download private.pkcs8.b64' }));
  const signer = importPrivateKey(file.text);
  expect([file.name, signer.fingerprint, signer.algorithm]).toEqual(['private.pkcs8.b64', second, 'ecdsa-p256-sha256']);

  await dialog.getByRole('button', { name: 'Add key' }).click();
  await hidden(dialog);
  await count(keys.locator('tbody tr'), 2);
  await texts(keys.locator('tbody td.key-type'), ['rsa-v1_5-sha256', 'ecdsa-p256-sha256']);
  const record = (await registry(`/registry/clients/${existing.clientId}`)).body;
  expect(record.keys.map((k: { fingerprint: string; algorithm: string }) => [k.fingerprint, k.algorithm])).toEqual([
    [existing.keys[0].fingerprint, 'rsa-v1_5-sha256'],
    [second, 'ecdsa-p256-sha256'],
  ]);
  // The new key signs for the client (role demo, whitelist 0.0.0.0).
  const echoed = await sendSigned({ clientId: existing.clientId, privateKey: signer.key }, `${session.gateway.url}/api/echo`);
  expect(echoed.status).toBe(200);
});

browserTest('Add key offers the type the client signs with (RSA: RSA-2048; newest key ECDSA P-256: P-256) and Generate makes it; Cancel or Escape with a pair not downloaded asks first', async () => {
  const rsa = await createClientFor(session.gateway, session.admin, { name: 'RSA Partner' });
  // The last test's toast would cover the buttons below it until it hides.
  const dismiss = page.locator('#toasts').getByRole('button', { name: 'Dismiss' });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  const toggle = rowOf(page, 'RSA Partner').getByRole('button', { name: 'Details' });
  await toggle.click();
  const open = page.getByRole('button', { name: 'Add key to RSA Partner' });
  await open.click();
  const dialog = page.getByRole('dialog', { name: 'Add a key to RSA Partner' });
  await visible(dialog);
  expect(await dialog.getByLabel('No key pair yet? Key type').inputValue()).toBe('rsa-2048');
  await dialog.getByRole('button', { name: 'Generate a key pair' }).click();
  await containsText(dialog.locator('#new-key-ok'), 'RSA-2048 public key (rsa-v1_5-sha256), fingerprint ');
  expect(importPublicKey(await dialog.getByLabel('New public key').inputValue()).algorithm).toBe('rsa-v1_5-sha256');

  // Cancel asks first (focus on the question's Cancel); answering Cancel keeps the dialog and its pair.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  const ask = page.getByRole('dialog', { name: 'Close without the private key?' });
  await visible(ask);
  await containsText(ask, 'its private key (private.pkcs8.b64) was not downloaded, and the page keeps no copy');
  await focused(ask.getByRole('button', { name: 'Cancel' }));
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await hidden(ask);
  await visible(dialog.locator('#new-key-private'));
  // Escape asks too; confirmed, the dialog closes, focus goes back to Add key, and nothing was added.
  await dialog.getByLabel('New public key').focus();
  await page.keyboard.press('Escape');
  await visible(ask);
  await ask.getByRole('button', { name: 'Close and discard the pair' }).click();
  await hidden(dialog);
  await focused(open);
  expect((await registry(`/registry/clients/${rsa.clientId}`)).body.keys).toHaveLength(1);

  // Downloaded, the pair is the partner's: Cancel closes at once.
  await open.click();
  await dialog.getByRole('button', { name: 'Generate a key pair' }).click();
  await visible(dialog.locator('#new-key-private'));
  await download(dialog.getByRole('button', { name: 'Download private.pkcs8.b64' }));
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await hidden(dialog);
  expect(await ask.isVisible()).toBe(false);
  await toggle.click();

  // Curve Partner signs with its newest key, the ECDSA P-256 one added above.
  await page.getByRole('button', { name: 'Add key to Curve Partner' }).click();
  const curve = page.getByRole('dialog', { name: 'Add a key to Curve Partner' });
  await visible(curve);
  expect(await curve.getByLabel('No key pair yet? Key type').inputValue()).toBe('ecdsa-p256');
  await curve.getByRole('button', { name: 'Cancel' }).click();
  await hidden(curve);
});

browserTest('signing in with an Ed25519 admin key (private.pkcs8.b64 + client-id): the page signs with Ed25519 in Chromium and the list loads', async () => {
  const key = generateKeyPair('ed25519');
  const created = await createClientFor(session.gateway, session.admin, {
    name: 'Edwards admin',
    roles: ['registry:admin'],
    networkWhitelist: ['0.0.0.0'],
    publicKey: spkiPemOf(key.publicKey),
  });
  expect(created.keys[0]).toMatchObject({ fingerprint: key.fingerprint, algorithm: 'ed25519' });
  const dir = join(session.home, 'edwards-admin');
  writeClientDir(dir, created.clientId, key);

  await page.getByRole('button', { name: 'Sign out and forget the key' }).click();
  await visible(page.locator('#sign-in'));
  const signedCalls: string[] = [];
  const onRequest = (request: any) => {
    if (new URL(request.url()).pathname.startsWith('/registry/')) signedCalls.push(request.headers()['signature-input'] ?? '');
  };
  page.on('request', onRequest);
  await signIn(page, session.gateway.url, dir);
  page.off('request', onRequest);
  await hasText(page.locator('#signer-id'), created.clientId);
  expect(await page.locator('#signer-fingerprint').getAttribute('title')).toBe(key.fingerprint);
  await visible(rowOf(page, 'Edwards Partner'));
  await visible(rowOf(page, 'Edwards admin'));
  expect(signedCalls.length).toBeGreaterThan(0);
  for (const input of signedCalls) expect(input).toContain(`keyid="${created.clientId}"`);
  for (const input of signedCalls) expect(input).toContain('alg="ed25519"');
});

browserTest('no page error and no console error (a CSP violation would be one) along the way', () => {
  expect(session.pageErrors).toEqual([]);
  expect(session.consoleErrors).toEqual([]);
});
