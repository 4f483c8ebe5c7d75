/**
 * The core as the page's script carries it (portal/signet-core.ts, bundled with the page's
 * options: lib/portal-bundle.ts) runs where the page runs: evaluated here in a bare JavaScript context that has what a browser
 * has (TextEncoder/TextDecoder, atob/btoa, WebCrypto) and nothing of Node (no Buffer, process or require), it
 * signs exactly what the core's node signer signs and applies the registry's field rules.
 */
import { webcrypto } from 'node:crypto';
import { createContext, runInContext } from 'node:vm';
import { transformSync } from 'esbuild';
import { signRequest } from '../../lambda/core/sign';
import { normaliseNetworkEntry } from '../../lambda/core/network-entries';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { buildPortalScript, portalScriptFile } from '../../lib/portal-bundle';
import { PORTAL_DIR } from './portal-modules';
import { nextTestKey } from '../support/test-keys';

type Bundle = {
  signRequest: (input: Record<string, unknown>) => Promise<{ headers: Record<string, string>; base: string }>;
  normaliseNetworkEntry: (entry: string) => string;
  listReach: (entries: string[]) => string;
  parseClientRoles: (roles: unknown, catalogue: { roleNames: Set<string> }) => string[];
  RSASSA_PKCS1_SHA256: { name: string; hash: string };
  SignetError: new (...args: never[]) => Error & { code: string };
};

/** The bundle as a browser gets it, turned into a script that fills `exports`, in a context without Node. */
function loadInBrowserLikeContext(): { bundle: Bundle; context: Record<string, unknown> } {
  const script = transformSync(buildPortalScript(join(PORTAL_DIR, 'signet-core.ts')), { format: 'cjs', loader: 'js' }).code;
  const context: Record<string, unknown> = { TextEncoder, TextDecoder, atob, btoa, crypto: webcrypto, exports: {}, module: { exports: {} } };
  (context.module as { exports: unknown }).exports = context.exports;
  createContext(context);
  runInContext(script, context);
  expect(runInContext('[typeof Buffer, typeof process, typeof require]', context)).toEqual(['undefined', 'undefined', 'undefined']);
  return { bundle: (context.module as { exports: Bundle }).exports, context };
}

test('signs without Node exactly what the node signer signs (Base64 through btoa, digests through WebCrypto)', async () => {
  const { bundle } = loadInBrowserLikeContext();
  const signer = nextTestKey();
  const privateKey = await webcrypto.subtle.importKey('pkcs8', Buffer.from(signer.pkcs8Base64, 'base64'), bundle.RSASSA_PKCS1_SHA256, false, ['sign']);
  const input = { method: 'POST', url: 'http://127.0.0.1:3000/registry/clients?x=1', body: '{"name":"Zoë"}', keyId: 'c_AdminAdminAdminAdmin0A', created: 1_700_000_001, dateField: 'x-date' };
  const fromBundle = await bundle.signRequest({ ...input, privateKey });
  const { headers, base } = signRequest({ ...input, dateField: 'x-date', privateKey: signer.key });
  expect(JSON.parse(JSON.stringify(fromBundle))).toEqual({ headers: { ...headers }, base });
});

test("applies the registry's rules with the registry's codes", () => {
  const { bundle, context } = loadInBrowserLikeContext();
  for (const entry of ['2001:DB8::1/128', '203.0.113.7/32', '::ffff:192.0.2.1']) expect(bundle.normaliseNetworkEntry(entry)).toBe(normaliseNetworkEntry(entry));
  expect(bundle.listReach(['0.0.0.0/1', '128.0.0.0/1'])).toBe('every-ipv4-address');
  expect(bundle.listReach(['::/0'])).toBe('every-address');
  expect(bundle.parseClientRoles(['demo', 'demo'], { roleNames: new Set(['demo']) })).toEqual(['demo']);
  context.attempt = () => bundle.normaliseNetworkEntry('10.0.0.5/8');
  expect(runInContext('(() => { try { attempt(); } catch (e) { return [e.name, e.code, e.message]; } })()', context)).toEqual([
    'SignetError',
    'invalid_network',
    'Network whitelist entry "10.0.0.5/8" has bits set after its /8 prefix: the range it names is 10.0.0.0/8. Write 10.0.0.0/8 for the whole range, or 10.0.0.5 for the one address.',
  ]);
});

describe('the page script a synth copies (portalScriptFile)', () => {
  const realTmp = process.env.TMPDIR;
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'portal-script-'));
    process.env.TMPDIR = tmp;
  });
  afterEach(() => {
    process.env.TMPDIR = realTmp;
    rmSync(tmp, { recursive: true, force: true });
  });

  test('is the built script, also where a file of another content was planted at its path', () => {
    const built = readFileSync(portalScriptFile(), 'utf8');
    expect(built).toBe(buildPortalScript());
    writeFileSync(portalScriptFile(), '/* planted */');
    const again = portalScriptFile();
    expect(readFileSync(again, 'utf8')).toBe(built);
  });

  test('is not kept in a cache directory anybody else may write (another user could plant the script there)', () => {
    const shared = join(tmp, `signet-portal-${process.getuid?.() ?? 'user'}`);
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const file = portalScriptFile();
    expect(file.startsWith(shared + sep)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(buildPortalScript());
  });
});
